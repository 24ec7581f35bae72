// No open redirect through `return_to` (RFC 9700 4.11): only a same-origin path is followed.
// "//evil.example" and "/\evil.example" are protocol-relative to browsers, so they are refused,
// as is anything with a scheme or control characters, and anything that becomes one of them once
// its dot segments are resolved.
export const DEFAULT_RETURN_TO = "/dashboard";
/** A stand-in origin for parsing: only paths that stay on it are followed. */
const SAME_ORIGIN = "http://same-origin.invalid";

export function safeReturnTo(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 4096) return DEFAULT_RETURN_TO;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return DEFAULT_RETURN_TO;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_RETURN_TO;
  // Re-serialised by the URL parser: what we send back in Location is then plain ASCII
  // (characters above U+00FF are percent-encoded, where Node would refuse the header with a 500),
  // and provably a path on our own origin.
  let url: URL;
  try {
    url = new URL(value, SAME_ORIGIN);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (url.origin !== SAME_ORIGIN) return DEFAULT_RETURN_TO;
  // Dot segments are resolved by the parser: "/.//evil.example" and "/a/..//evil.example" come
  // out as "//evil.example", protocol-relative again, so the result is checked, not only the input.
  if (url.pathname.startsWith("//")) return DEFAULT_RETURN_TO;
  return `${url.pathname}${url.search}${url.hash}`;
}
