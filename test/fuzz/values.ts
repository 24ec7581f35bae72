// Values for the fuzzer: valid ones generated from a JSON Schema, and the hostile ones a field is
// mutated into (wrong types, null, huge and odd Unicode strings, boundary numbers and dates).
import fc from "fast-check";
import type { Schema } from "./openapi-model.ts";

/** What the service already holds, so valid requests can name real things. */
export interface Pools {
  /** Ids by collection name (customers, orders, …) of the fuzzing vendor. */
  ids: Record<string, string[]>;
  /** Ids of another vendor's resources: always 404 for the fuzzing vendor. */
  foreignIds: string[];
  vendorIds: string[];
  clientId: string;
  clientSecret: string;
  tokens: string[];
  redirectUri: string;
  scopes: string[];
}

const cuidLike = fc.stringMatching(/^[a-z][a-z0-9]{23}$/);

export function pick(pool: string[] | undefined): fc.Arbitrary<string> {
  return pool && pool.length > 0
    ? fc.integer({ min: 0, max: 1_000_000 }).map((i) => pool[i % pool.length] as string)
    : cuidLike;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

const realisticInstant = fc.date({
  min: new Date("2020-01-01T00:00:00Z"),
  max: new Date("2032-12-31T23:59:59Z"),
  noInvalidDate: true,
});
const anyInstant = fc.date({
  min: new Date("0001-01-01T00:00:00Z"),
  max: new Date("9999-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});

/** An RFC 3339 date-time in the accepted range, with Z or a numeric offset. */
export const dateTime = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: realisticInstant }, { weight: 1, arbitrary: anyInstant }),
    fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([date, offset, zulu, millis]) => {
    const local = new Date(date.getTime() + (zulu ? 0 : offset) * 60_000);
    const year = local.getUTCFullYear();
    if (zulu || year < 1 || year > 9999)
      return millis ? date.toISOString() : date.toISOString().replace(/\.\d{3}Z$/, "Z");
    const sign = offset < 0 ? "-" : "+";
    const abs = Math.abs(offset);
    const stamp = `${pad(year, 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
    return `${stamp}${millis ? `.${pad(local.getUTCMilliseconds(), 3)}` : ""}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  });

export const dateOnly = fc.oneof(realisticInstant, anyInstant).map((d) => d.toISOString().slice(0, 10));

const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,15}$/), fc.integer({ min: 0, max: 1e9 }))
  .map(([local, n]) => `${local.replace(/\.+$/, "")}${n}@example.com`);
const url = fc.stringMatching(/^[a-z0-9/]{0,20}$/).map((p) => `https://hooks.example.test/${p}`);

/** The fields whose valid values depend on the service's data or on OAuth, by name. */
function byName(name: string, pools: Pools): fc.Arbitrary<unknown> | undefined {
  switch (name) {
    case "customerId":
      return fc.oneof(
        { weight: 4, arbitrary: pick(pools.ids.customers) },
        { weight: 1, arbitrary: cuidLike },
      );
    case "orderId":
      return fc.oneof({ weight: 4, arbitrary: pick(pools.ids.orders) }, { weight: 1, arbitrary: cuidLike });
    case "url":
      return url;
    case "client_id":
      return fc.constant(pools.clientId);
    case "client_secret":
      return fc.constant(pools.clientSecret);
    case "redirect_uri":
      return fc.constant(pools.redirectUri);
    case "token":
    case "refresh_token":
      return fc.oneof(pick(pools.tokens), fc.stringMatching(/^vrt_[A-Za-z0-9_-]{10,50}$/));
    case "code_verifier":
      return fc.stringMatching(/^[A-Za-z0-9_~.-]{43,128}$/);
    case "scope":
      return fc.subarray(pools.scopes, { minLength: 1 }).map((s) => s.join(" "));
    case "cursor":
      return fc.constant(undefined);
  }
  return undefined;
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === "string") return [schema.type];
  if (schema.properties) return ["object"];
  return [];
}

/** A value valid against `schema` (as far as a generator can tell), for the field `name`. */
export function validValue(schema: Schema, name: string, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
  const named = byName(name, pools);
  if (named) return named;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives))
    return fc.oneof(...alternatives.map((s: Schema) => validValue(s, name, pools, depth)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return validValue(Object.assign({}, ...schema.allOf), name, pools, depth);
  }
  const types = typesOf(schema);
  if (types.length > 1) {
    return fc.oneof(
      ...types.map((type) => ({
        weight: type === "null" ? 1 : 4,
        arbitrary: validValue({ ...schema, type }, name, pools, depth),
      })),
    );
  }
  switch (types[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case "number":
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "string":
      return validString(schema);
    case "array": {
      const items = validValue(schema.items ?? {}, name, pools, depth + 1);
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(items, constraints);
    }
    case "object":
      return validObject(schema, pools, depth);
    default:
      return depth > 2 ? fc.constant(null) : smallJson;
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case "date-time":
      return dateTime;
    case "date":
      return dateOnly;
    case "email":
      return email;
    case "uri":
      return url;
  }
  if (typeof schema.pattern === "string") {
    if (/^\^\[Hh\]\[Tt\]/.test(schema.pattern)) return url;
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length <= (schema.maxLength ?? 1000));
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 60, minLength + 60));
  return plainText(minLength, maxLength);
}

// One arbitrary per length range, shared by every field that has it: a new grapheme string
// arbitrary maps fast-check's whole grapheme table again (~2 s of CPU over the suite's fields).
const plainTexts = new Map<string, fc.Arbitrary<string>>();

function plainText(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const key = `${minLength}:${maxLength}`;
  let arbitrary = plainTexts.get(key);
  if (!arbitrary) {
    arbitrary = fc
      .oneof(
        { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
        { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: "grapheme" }) },
      )
      .filter(
        (s) =>
          [...s].length <= maxLength &&
          [...s].length >= minLength &&
          s.trim().length >= Math.min(minLength, 1),
      );
    plainTexts.set(key, arbitrary);
  }
  return arbitrary;
}

const smallJson: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 2 })
  .filter((v) => !JSON.stringify(v).includes("\\u0000"));

function validObject(schema: Schema, pools: Pools, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (schema.additionalProperties === false) return fc.constant({});
    return fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()),
      { maxKeys: 4 },
    );
  }
  const required: string[] = schema.required ?? [];
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const n of names) record[n] = validValue(properties[n] as Schema, n, pools, depth + 1);
  return fc.record(record, { requiredKeys: required.filter((n) => names.includes(n)) }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

// ---- hostile values -------------------------------------------------------------------------

export const nastyStrings = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\uD800",
    "x\uDC00y",
    "\uD83D",
    "\uFEFF",
    "\u202Eevil",
    "😀".repeat(300),
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "%00",
    "%ZZ",
    "../../etc/passwd",
    "null",
    "true",
    "0",
    "-1",
    "NaN",
    "Infinity",
    "1e309",
    "\\",
    '"',
    "\r\n",
    "ＡＢＣ",
    "ﷺ",
    "\u0085\u2028\u2029",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer({ min: 2_000, max: 40_000 }).map((n) => "x".repeat(n)),
  fc.integer({ min: 1, max: 3_000 }).map((n) => "é\uD800".repeat(n)),
);

export const nastyDates = fc.constantFrom(
  "0000-01-01",
  "0000-12-31T23:59:59Z",
  "0001-01-01T00:00:00+14:00",
  "9999-12-31T23:59:60Z",
  "9999-12-31T23:59:59.999-14:00",
  "9999-12-31",
  "10000-01-01T00:00:00Z",
  "+010000-01-01T00:00:00Z",
  "-000001-01-01T00:00:00Z",
  "2026-02-29",
  "2024-02-30",
  "2026-13-01",
  "2026-00-10",
  "2026-01-01T24:00:00Z",
  "2026-01-01T00:00:00+24:00",
  "2026-01-01T00:00:00+16:00",
  "2026-01-01T00:00:00-15:59",
  "2026-01-01T00:00:00+05",
  "2026-01-01T00:00:00+0530",
  "2026-01-01T00:00:00",
  "2026-06-30T23:59:60Z",
  "2026-01-01T00:00:00.1234567890123Z",
  "1970-01-01T00:00:00Z",
  "2026-01-01t00:00:00z",
  "2026-01-01 00:00:00Z",
  "20260101T000000Z",
  "2026-W01",
  "yesterday",
);

export function nastyNumbers(schema: Schema = {}): fc.Arbitrary<number> {
  const bounds: number[] = [];
  for (const b of [schema.minimum, schema.maximum]) if (typeof b === "number") bounds.push(b - 1, b, b + 1);
  return fc.oneof(
    fc.constantFrom(0, -0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), 2 ** 63, 1e308, -1e308, 5e-324, ...bounds),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

/** Anything but what the schema wants: another type, null, hostile strings, numbers and dates. */
export function hostileValue(schema: Schema = {}): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: nastyStrings },
    { weight: 2, arbitrary: nastyDates },
    { weight: 2, arbitrary: nastyNumbers(schema) },
    { weight: 2, arbitrary: fc.constant(null) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.boolean(),
        fc.constant([]),
        fc.constant({}),
        fc.array(fc.oneof(fc.integer(), nastyStrings), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      ),
    },
  );
}

/** Keys a body must not be able to smuggle in. */
export const extraKeys = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "id",
    "vendorId",
    "status",
    "createdAt",
    "secret",
    "",
    "\u0000",
    "a.b",
    "$where",
  ),
  fc.string({ maxLength: 20 }),
);

export const badIds = fc.oneof(
  fc.constantFrom(
    "%ZZ",
    "%FF",
    "%E0%A4%A",
    "%00",
    "%2F",
    "%2e%2e",
    "..",
    ".",
    "null",
    "undefined",
    "0",
    "-1",
    "1e10",
    "%27%20OR%20%271%27%3D%271",
    "%F0%9F%98%80",
    "%C3%BF",
    "TZ4A98XXAT96IWS9ZMBRGJ3A",
  ),
  cuidLike,
  fc.integer({ min: 65, max: 12_000 }).map((n) => "a".repeat(n)),
  fc
    .string({ unit: "binary", minLength: 1, maxLength: 30 })
    .map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, "x"))),
);

export const wrongContentTypes = fc.constantFrom(
  "text/plain",
  "application/xml",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "application/json; charset=latin1",
  "application/jsonx",
  "application/vnd.api+json",
  "APPLICATION/JSON",
  "application/json;",
  "*/*",
  ";;;",
  "",
);
