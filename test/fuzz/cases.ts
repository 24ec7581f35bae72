// Fuzz cases for one operation: a valid request generated from the document, then (most of the
// time) one mutation of it: a field, a key, the body bytes, the content type, an id, the query or
// the credentials.
import fc from "fast-check";
import type { Operation, Schema } from "./openapi-model.ts";
import type { RawRequest } from "./raw-http.ts";
import {
  badIds,
  extraKeys,
  hostileValue,
  nastyDates,
  nastyStrings,
  type Pools,
  pick,
  validValue,
  wrongContentTypes,
} from "./values.ts";

export interface Draft {
  label: string;
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  rawQuery?: string;
  headers: Record<string, string>;
  body?: { kind: "json" | "form"; value: unknown } | { kind: "raw"; bytes: Buffer };
  contentType?: string;
  localAddress?: string;
}

export interface CaseContext {
  pools: Pools;
  apiKey: string;
}

const BODY_LIMIT = 1024 * 1024;

/** The collection a path parameter names: `/customers/{id}` → customers, `{vendorId}` → vendors. */
function collectionOf(path: string, param: string): string {
  if (param === "vendorId") return "vendors";
  if (param === "deliveryId") return "deliveries";
  const parts = path.split("/");
  const i = parts.indexOf(`{${param}}`);
  return parts[i - 1] ?? "";
}

function queryValue(schema: Schema, name: string, pools: Pools): fc.Arbitrary<string | undefined> {
  if (name === "cursor") return fc.constant(undefined);
  if (name === "updatedSince" || name === "since" || name === "from" || name === "to") {
    return fc.option(validValue(schema, name, pools).map(String), { nil: undefined, freq: 2 });
  }
  return fc.option(
    validValue(schema, name, pools).map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
    {
      nil: undefined,
      freq: 2,
    },
  );
}

export function validDraft(op: Operation, ctx: CaseContext): fc.Arbitrary<Draft> {
  const { pools } = ctx;
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of op.parameters.filter((p) => p.in === "path")) {
    pathArbs[p.name] = pick(pools.ids[collectionOf(op.path, p.name)]).map(encodeURIComponent);
  }
  const queryArbs = op.parameters
    .filter((p) => p.in === "query")
    .map((p) =>
      queryValue(p.schema, p.name, pools).map((v) =>
        v === undefined ? undefined : ([p.name, v] as [string, string]),
      ),
    );
  const bodyArb: fc.Arbitrary<Draft["body"]> = op.body
    ? validValue(op.body.schema, "(body)", pools).map((value) => ({
        kind: op.body?.contentType.includes("form") ? ("form" as const) : ("json" as const),
        value,
      }))
    : fc.constant(undefined);
  return fc
    .record({
      pathParams: fc.record(pathArbs),
      query: fc
        .tuple(...queryArbs)
        .map((pairs) => pairs.filter((p): p is [string, string] => p !== undefined)),
      body: op.body && !op.body.required ? fc.option(bodyArb, { nil: undefined }) : bodyArb,
      idempotency: fc.option(fc.stringMatching(/^[A-Za-z0-9-]{8,40}$/), { nil: undefined, freq: 4 }),
    })
    .map(({ pathParams, query, body, idempotency }) => ({
      label: "valid",
      pathParams,
      query,
      headers: {
        ...(op.secured ? { "x-api-key": ctx.apiKey } : {}),
        ...(idempotency && op.method === "POST" ? { "idempotency-key": idempotency } : {}),
      },
      ...(body ? { body } : {}),
    }));
}

/** JSON paths (as key lists) of every value inside `value`, the root included. */
function pathsOf(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  out.push(prefix);
  if (value !== null && typeof value === "object" && prefix.length < 6) {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  }
  return out;
}

function setAt(root: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  const [head, ...rest] = path as [string, ...string[]];
  defineOwn(copy, head, setAt(copy[head], rest, value));
  return copy;
}

/** Sets an own enumerable property, even `__proto__`, so JSON.stringify sends it as a key. */
function defineOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function objectPaths(value: unknown): string[][] {
  return pathsOf(value).filter((p) => {
    const v = p.reduce<any>((at, k) => at?.[k], value);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  });
}

function bodyValue(d: Draft): unknown {
  return d.body && d.body.kind !== "raw" ? d.body.value : {};
}

function withBody(d: Draft, value: unknown, label: string): Draft {
  const kind = d.body?.kind === "form" ? "form" : "json";
  return { ...d, label, body: { kind, value } };
}

function jsonText(d: Draft): string {
  return JSON.stringify(bodyValue(d)) ?? "{}";
}

type Mutation = fc.Arbitrary<(d: Draft) => Draft>;

export function mutations(op: Operation, ctx: CaseContext): Mutation {
  const choices: Array<{ weight: number; arbitrary: Mutation }> = [];
  const add = (weight: number, arbitrary: Mutation) => choices.push({ weight, arbitrary });

  // A field of the body set to something hostile.
  add(
    op.body ? 8 : 1,
    fc.tuple(fc.nat(), hostileValue()).map(([i, value]) => (d: Draft): Draft => {
      const paths = pathsOf(bodyValue(d)).filter((p) => p.length > 0);
      const path = paths.length > 0 ? (paths[i % paths.length] as string[]) : ["field"];
      return withBody(d, setAt(bodyValue(d), path, value), `body ${path.join(".")} → ${preview(value)}`);
    }),
  );
  // An extra key somewhere (including __proto__ and constructor).
  add(
    op.body ? 3 : 1,
    fc.tuple(fc.nat(), extraKeys, hostileValue()).map(([i, key, value]) => (d: Draft): Draft => {
      const root = structuredClone(bodyValue(d) ?? {});
      const targets = objectPaths(root);
      const path = targets.length > 0 ? (targets[i % targets.length] as string[]) : [];
      const holder = path.reduce<any>((at, k) => at?.[k], root);
      if (holder && typeof holder === "object") defineOwn(holder, key, value);
      return withBody(
        d,
        holder && typeof holder === "object" ? root : { [key]: value },
        `extra key ${JSON.stringify(key)}`,
      );
    }),
  );
  // A required field left out.
  if (op.body) {
    add(
      2,
      fc.nat().map((i) => (d: Draft): Draft => {
        const value = bodyValue(d);
        if (!value || typeof value !== "object") return d;
        const keys = Object.keys(value);
        if (keys.length === 0) return d;
        const key = keys[i % keys.length] as string;
        const { [key]: _, ...rest } = value as Record<string, unknown>;
        return withBody(d, rest, `body without ${key}`);
      }),
    );
  }
  // The whole body replaced.
  add(
    2,
    hostileValue().map(
      (value) =>
        (d: Draft): Draft =>
          withBody(d, value, `body is ${preview(value)}`),
    ),
  );
  // Body bytes that are not the JSON (or form) they claim to be.
  add(
    op.body ? 4 : 1,
    fc.oneof(
      fc.nat().map((i) => (d: Draft): Draft => {
        const text = jsonText(d);
        return raw(d, text.slice(0, i % Math.max(1, text.length)), "truncated JSON");
      }),
      fc.integer({ min: 100, max: 50_000 }).map(
        (depth) =>
          (d: Draft): Draft =>
            raw(d, `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`, `nested ${depth} deep`),
      ),
      fc.integer({ min: 100, max: 50_000 }).map(
        (depth) =>
          (d: Draft): Draft =>
            raw(d, `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`, `objects nested ${depth} deep`),
      ),
      fc
        .constantFrom(
          "null",
          "",
          "[]",
          '"text"',
          "1e400",
          "-0",
          '{"a":1,"a":2}',
          '{"__proto__":{"polluted":true}}',
          '{"constructor":{"prototype":{"polluted":true}}}',
          "{'single':'quotes'}",
          "{,}",
          "\uFEFF{}",
          "NaN",
        )
        .map(
          (text) =>
            (d: Draft): Draft =>
              raw(d, text, `raw ${JSON.stringify(text)}`),
        ),
      fc.nat().map((i) => (d: Draft): Draft => {
        const bytes = Buffer.from(jsonText(d));
        const at = i % Math.max(1, bytes.length);
        return {
          ...d,
          label: "invalid UTF-8",
          body: {
            kind: "raw",
            bytes: Buffer.concat([
              bytes.subarray(0, at),
              Buffer.from([0xff, 0xc3, 0x28]),
              bytes.subarray(at),
            ]),
          },
          contentType: contentTypeOf(op),
        };
      }),
      fc.constantFrom(BODY_LIMIT + 1, BODY_LIMIT + 4096).map(
        (size) =>
          (d: Draft): Draft => ({
            ...d,
            label: `oversized body ${size} B`,
            body: { kind: "raw", bytes: Buffer.from(`{"a":"${"x".repeat(size)}"}`) },
            contentType: contentTypeOf(op),
          }),
      ),
    ),
  );
  // The content type.
  add(
    3,
    wrongContentTypes.map(
      (type) =>
        (d: Draft): Draft => ({
          ...d,
          label: `content-type ${JSON.stringify(type)}`,
          contentType: type,
          body: d.body ?? { kind: "json", value: {} },
        }),
    ),
  );
  add(
    2,
    fc.constantFrom(contentTypeOf(op), "text/plain", undefined).map((type) => (d: Draft): Draft => {
      const { body: _, ...rest } = d;
      return {
        ...rest,
        label: `empty body, content-type ${type}`,
        body: { kind: "raw", bytes: Buffer.alloc(0) },
        ...(type ? { contentType: type } : {}),
      };
    }),
  );
  // Ids.
  const pathParams = op.parameters.filter((p) => p.in === "path");
  if (pathParams.length > 0) {
    add(
      5,
      fc
        .tuple(fc.nat(), fc.oneof(badIds, pick(ctx.pools.foreignIds).map(encodeURIComponent)))
        .map(([i, id]) => (d: Draft): Draft => {
          const name = (pathParams[i % pathParams.length] as { name: string }).name;
          return {
            ...d,
            label: `path ${name}=${id.slice(0, 60)}`,
            pathParams: { ...d.pathParams, [name]: id },
          };
        }),
    );
  }
  // The query.
  const queryParams = op.parameters.filter((p) => p.in === "query");
  add(
    4,
    fc.oneof(
      fc
        .tuple(fc.nat(), fc.oneof(nastyStrings, nastyDates, fc.integer().map(String)))
        .map(([i, value]) => (d: Draft): Draft => {
          const name =
            queryParams.length > 0 ? (queryParams[i % queryParams.length] as { name: string }).name : "limit";
          return {
            ...d,
            label: `query ${name}=${preview(value)}`,
            query: [...d.query.filter(([k]) => k !== name), [name, value]],
          };
        }),
      fc.nat().map((i) => (d: Draft): Draft => {
        const name =
          queryParams.length > 0 ? (queryParams[i % queryParams.length] as { name: string }).name : "limit";
        return { ...d, label: `query ${name} twice`, query: [...d.query, [name, "1"], [name, "2"]] };
      }),
      fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 12 })).map(
        ([k, v]) =>
          (d: Draft): Draft => ({
            ...d,
            label: `unknown query ${k}`,
            query: [...d.query, [k, v]],
          }),
      ),
      fc
        .constantFrom(
          "%ZZ=1",
          "limit=%FF",
          "=",
          "&&&",
          "a[b]=1&a[c]=2",
          "limit[]=1",
          "__proto__[x]=1",
          "access_token=vat_x",
        )
        .map(
          (rawQuery) =>
            (d: Draft): Draft => ({ ...d, label: `raw query ${rawQuery}`, rawQuery }),
        ),
    ),
  );
  // Credentials and headers.
  add(
    2,
    fc.oneof(
      fc.constant((d: Draft): Draft => {
        const { "x-api-key": _, ...headers } = d.headers;
        return { ...d, label: "no credentials", headers };
      }),
      fc
        .constantFrom<Record<string, string>[]>(
          { "x-api-key": "vk_wrong" },
          { "x-api-key": "" },
          { authorization: "Bearer " },
          { authorization: "Bearer vat_nonsense" },
          { authorization: "Basic Zm9vOmJhcg==" },
          { authorization: "Basic %%%" },
          { "x-request-id": "bad id with spaces" },
          { "idempotency-key": "é" },
          { "idempotency-key": "k".repeat(300) },
          { accept: "text/html" },
        )
        .map(
          (headers) =>
            (d: Draft): Draft => ({
              ...d,
              label: `headers ${JSON.stringify(headers)}`,
              headers: { ...d.headers, ...headers },
            }),
        ),
      fc.constant(
        (d: Draft): Draft => ({
          ...d,
          label: "both credentials",
          headers: { ...d.headers, "x-api-key": ctx.apiKey, authorization: "Bearer vat_x" },
        }),
      ),
    ),
  );
  // Form bodies: a parameter repeated, or bytes that are not form-encoding.
  if (op.body?.contentType.includes("form")) {
    add(
      4,
      fc.oneof(
        fc.nat().map((i) => (d: Draft): Draft => {
          const value = bodyValue(d) as Record<string, unknown>;
          const keys = Object.keys(value ?? {});
          const key = keys[i % Math.max(1, keys.length)] ?? "grant_type";
          return withBody(d, { ...value, [key]: [value?.[key] ?? "x", "again"] }, `form ${key} twice`);
        }),
        fc.constantFrom("%ZZ", "grant_type=%FF", "a=%00", "&&&==", "grant_type", "=x").map(
          (text) =>
            (d: Draft): Draft => ({
              ...d,
              label: `raw form ${text}`,
              body: { kind: "raw", bytes: Buffer.from(text) },
              contentType: "application/x-www-form-urlencoded",
            }),
        ),
      ),
    );
  }
  return fc.oneof(...choices);
}

function raw(d: Draft, text: string, label: string): Draft {
  const { body: _, ...rest } = d;
  return {
    ...rest,
    label,
    body: { kind: "raw", bytes: Buffer.from(text) },
    ...(d.contentType ? { contentType: d.contentType } : {}),
  };
}

function contentTypeOf(op: Operation): string {
  return op.body?.contentType ?? "application/json";
}

function preview(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 60)}…(${text.length})` : text;
}

export function caseOf(op: Operation, ctx: CaseContext): fc.Arbitrary<Draft> {
  return fc.oneof(
    { weight: 1, arbitrary: validDraft(op, ctx) },
    {
      weight: 3,
      arbitrary: fc.tuple(validDraft(op, ctx), mutations(op, ctx)).map(([d, mutate]) => mutate(d)),
    },
  );
}

/** The bytes on the wire for a draft. */
export function toRequest(op: Operation, d: Draft): RawRequest {
  let path = op.path;
  for (const [name, value] of Object.entries(d.pathParams)) path = path.replace(`{${name}}`, value);
  const query = d.rawQuery ?? new URLSearchParams(d.query).toString();
  const headers = { ...d.headers };
  let body: Buffer | undefined;
  let contentType = d.contentType;
  if (d.body?.kind === "raw") {
    body = d.body.bytes;
  } else if (d.body?.kind === "form") {
    const form = new URLSearchParams();
    const value = d.body.value;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) {
        for (const one of Array.isArray(v) ? v : [v])
          form.append(k, typeof one === "string" ? one : (JSON.stringify(one) ?? ""));
      }
    } else {
      form.append("body", JSON.stringify(value) ?? "");
    }
    body = Buffer.from(form.toString());
    contentType ??= "application/x-www-form-urlencoded";
  } else if (d.body?.kind === "json") {
    body = Buffer.from(JSON.stringify(d.body.value) ?? "null");
    contentType ??= "application/json";
  }
  if (contentType !== undefined && contentType !== "") headers["content-type"] = contentType;
  return {
    method: op.method,
    target: query ? `${path}?${query}` : path,
    headers,
    ...(body ? { body } : {}),
    ...(d.localAddress ? { localAddress: d.localAddress } : {}),
  };
}
