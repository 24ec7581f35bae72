// The rules of a redirect URI, alone in their file so that the CLI checks a command line with
// them without loading the applications service and the database layer under it.
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why a redirect URI is refused, or undefined when it is acceptable: https, or http on a loopback
 * host only (RFC 8252 7.3, RFC 9700 2.6); no fragment (RFC 6749 3.1.2); no credentials in it.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "must be an absolute URL";
  }
  if (uri.length > 2048) return "must be at most 2048 characters";
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    return "must use https (http only on localhost, 127.0.0.1 or [::1])";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must use https";
  if (uri.includes("#")) return "must not contain a fragment";
  if (url.username || url.password) return "must not contain credentials";
  return undefined;
}
