// No open redirect through `return_to` (RFC 9700 4.11): only a same-origin path is followed.
// "//evil.example" and "/\evil.example" are protocol-relative to browsers, so they are refused,
// as is anything with a scheme or control characters.
export const DEFAULT_RETURN_TO = "/dashboard";

export function safeReturnTo(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 4096) return DEFAULT_RETURN_TO;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return DEFAULT_RETURN_TO;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_RETURN_TO;
  return value;
}
