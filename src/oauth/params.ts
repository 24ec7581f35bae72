// Reading OAuth parameters from a parsed query string or form body, where a repeated name arrives
// as an array. RFC 6749 3.1 and 3.2: "Request and response parameters MUST NOT be included more
// than once", so a repeated parameter is an error, never "take the first".

export type RawParams = Record<string, string | string[] | undefined>;

export function asParams(value: unknown): RawParams {
  return value && typeof value === "object" ? (value as RawParams) : {};
}

export type ParamValue = { kind: "absent" } | { kind: "repeated" } | { kind: "one"; value: string };

export function param(params: RawParams, name: string): ParamValue {
  if (!Object.hasOwn(params, name)) return { kind: "absent" };
  const value = params[name];
  if (Array.isArray(value)) return { kind: "repeated" };
  // An empty value counts as absent (RFC 6749 3.1: "sent without a value MUST be treated as omitted").
  if (value === undefined || value === "") return { kind: "absent" };
  return { kind: "one", value };
}

/** The names that appear more than once. */
export function repeatedNames(params: RawParams): string[] {
  return Object.keys(params).filter((name) => Array.isArray(params[name]));
}

/** The single value of a parameter; absent → undefined; repeated → thrown by `onRepeated`. */
export function single(
  params: RawParams,
  name: string,
  onRepeated: (name: string) => Error,
): string | undefined {
  const p = param(params, name);
  if (p.kind === "repeated") throw onRepeated(name);
  return p.kind === "one" ? p.value : undefined;
}
