// The event catalogue page (/docs/events): every event type of the catalogue has a sample whose
// `data` is generated from its payload schema (src/docs/event-samples.ts, the one generator the
// page uses) and validates against that schema; the page shows each sample as it is generated.
import { Ajv } from "ajv";
import type { FormatsPlugin } from "ajv-formats";
import * as ajvFormats from "ajv-formats";
import escapeHtml from "escape-html";
import { describe, expect, it } from "vitest";
import { eventSamples, sampleOf } from "../../src/docs/event-samples.ts";
import { allEventTypes, eventCatalog } from "../../src/modules/events/catalog.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = ((ajvFormats as unknown as { default: FormatsPlugin }).default ??
  ajvFormats) as unknown as FormatsPlugin;

describe("the event samples", () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv, { mode: "full" });

  it("cover every type of the catalogue, once, in its order", () => {
    expect(eventSamples().map((s) => s.type)).toEqual(allEventTypes);
  });

  it("each validate against their event's payload schema", () => {
    for (const sample of eventSamples()) {
      const schema = eventCatalog[sample.type as keyof typeof eventCatalog].payload;
      const validate = ajv.compile(schema);
      expect(validate(sample.data), `${sample.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(sample.body).toMatchObject({ event: sample.type, data: sample.data });
    }
  });

  it("show every property, optional ones too, and a value rather than null where a field may have one", () => {
    const schema = {
      type: "object",
      required: ["id"],
      properties: {
        id: { type: "string", examples: ["abc"] },
        note: { anyOf: [{ type: "null" }, { type: "string", minLength: 3 }] },
        when: { type: "string", format: "date-time" },
        count: { type: "integer", minimum: 5, maximum: 9 },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
      },
    };
    const sample = sampleOf(schema) as Record<string, unknown>;
    expect(Object.keys(sample).sort()).toEqual(["count", "id", "note", "tags", "when"]);
    expect(sample.id).toBe("abc");
    expect(typeof sample.note).toBe("string");
    expect((sample.note as string).length).toBeGreaterThanOrEqual(3);
    expect(sample.count).toBe(5);
    expect(sample.tags).toEqual(["a"]);
    expect(ajv.validate(schema, sample)).toBe(true);
  });
});

describe("GET /docs/events", () => {
  it("lists every event with its generated sample, under the guides' policy", async () => {
    const res = await fetch(`${t.url}/docs/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    for (const sample of eventSamples()) {
      expect(html).toContain(`id="${sample.type}"`);
      expect(html).toContain(escapeHtml(JSON.stringify(sample.body, null, 2)));
    }
    expect(html).toContain('href="/docs/events" aria-current="page"');
    // The guides link to it.
    const guide = await (await fetch(`${t.url}/docs/guides/webhooks`)).text();
    expect(guide).toContain('href="/docs/events"');
  });
});
