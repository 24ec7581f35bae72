// A sample of each event's payload, generated from its schema in the event catalogue (src/modules/
// events/catalog.ts), for the event catalogue page (/docs/events) and checked by
// test/docs/event-catalogue.test.ts: every type's sample validates against its own schema, so a
// field added to a schema shows in the samples without anyone writing it down. The rules, in the
// order they apply to a schema:
// 1. `const`, then the first of `enum`.
// 2. A union (`anyOf`/`oneOf`): the first variant that is not `null` (a sample shows the value a
//    field has when it has one).
// 3. An object: every property, optional ones too (a sample shows every field there can be).
// 4. An array: one item (or `minItems` of them).
// 5. A scalar: its first `examples` value, then its `default`; else one made from its type and
//    format (fixed instants, an example.com address), within its bounds.
import { eventCatalog } from "../modules/events/catalog.ts";

type Schema = Record<string, unknown>;

/** The instant every generated timestamp names, so the samples read the same on every page load. */
export const SAMPLE_INSTANT = "2026-11-22T09:30:00.000Z";
const SAMPLE_EVENT_ID = "e7k2m9x4q8w1n5b3v6c0z2a1";

function stringSample(schema: Schema): string {
  switch (schema.format) {
    case "date-time":
      return SAMPLE_INSTANT;
    case "date":
      return SAMPLE_INSTANT.slice(0, 10);
    case "email":
      return "bride@example.com";
    case "uri":
      return "https://example.com/sample";
  }
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : 100;
  return "sample".padEnd(min, "x").slice(0, Math.max(min, Math.min(max, 6)));
}

function numberSample(schema: Schema): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  const value = min ?? 1;
  return max !== undefined && value > max ? max : value;
}

export function sampleOf(schema: Schema): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) {
    const chosen = variants.find((v) => v.type !== "null") ?? (variants[0] as Schema);
    return sampleOf(chosen);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "object" || (type === undefined && schema.properties)) {
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      out[name] = sampleOf(property);
    }
    return out;
  }
  if (type === "array") {
    const items = (schema.items ?? {}) as Schema;
    const count = Math.max(1, typeof schema.minItems === "number" ? schema.minItems : 1);
    if (schema.maxItems === 0) return [];
    return Array.from({ length: count }, () => sampleOf(items));
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("default" in schema) return schema.default;
  if (type === "string") return stringSample(schema);
  if (type === "integer" || type === "number") return numberSample(schema);
  if (type === "boolean") return true;
  return null;
}

export interface EventSample {
  type: string;
  scope: string | null;
  description: string;
  /** The payload (`data`), generated from the schema. */
  data: unknown;
  /** The whole body a delivery POSTs. */
  body: { id: string; event: string; data: unknown; timestamp: string };
}

/** Every event of the catalogue with its sample, in the catalogue's order. */
export function eventSamples(): EventSample[] {
  return Object.entries(eventCatalog).map(([type, entry]) => {
    const data = sampleOf(entry.payload as unknown as Schema);
    return {
      type,
      scope: entry.scope,
      description: entry.description,
      data,
      body: { id: SAMPLE_EVENT_ID, event: type, data, timestamp: SAMPLE_INSTANT },
    };
  });
}
