// The SSRF guard (CONTRACT 7). A webhook URL must not make the service call into its own network:
// every address the host resolves to must be public unicast, checked at registration and again
// at connect time on every delivery (the resolved address is checked, then connected to, so DNS
// rebinding between check and use is impossible). ipaddr.js classifies every spelling: IPv4 in
// any notation the WHATWG URL parser accepts (0x7f.1, 2130706433, 127.1 all become 127.0.0.1),
// NAT64/6to4/Teredo embeddings, unique-local, link-local,
// multicast and the reserved ranges. Only `unicast` (public) is allowed, unless
// WEBHOOK_ALLOW_PRIVATE_URLS lifts the rule for development and tests. For IPv6 that is not
// enough: the URL parser writes http://[::127.0.0.1]/ as ::7f00:1, an IPv4-compatible address
// that ipaddr.js calls `unicast`; so IPv6 must also lie in global unicast, 2000::/3 (RFC 4291).

import type { LookupAddress, LookupOptions } from "node:dns";
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export const MAX_URL_LENGTH = 2048;

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  // IPv6 only from global unicast: no IPv4-compatible or IPv4-mapped spelling of an IPv4 host,
  // whichever IPv4 address it carries (a public one is reachable by its IPv4 literal anyway).
  if (parsed.kind() === "ipv6" && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return false;
  return parsed.range() === "unicast";
}

export class UrlRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UrlRefusedError";
  }
}

export interface UrlPolicy {
  allowPrivate: boolean;
  httpsOnly: boolean;
  resolver: Resolver;
}

/** The URL's host without IPv6 brackets, as a resolver or ipaddr expects it. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Checks a webhook URL as registration does; throws UrlRefusedError with a user-facing reason. */
export async function assertWebhookUrl(raw: string, policy: UrlPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError("must be an absolute http(s) URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UrlRefusedError("must be an absolute http(s) URL");
  }
  if (policy.httpsOnly && url.protocol !== "https:") throw new UrlRefusedError("must use https");
  if (url.username || url.password) throw new UrlRefusedError("must not carry credentials");
  if (policy.allowPrivate) return url;
  const host = bareHost(url);
  const addresses = net.isIP(host) ? [host] : await resolveAll(policy.resolver, host);
  if (addresses.length === 0) throw new UrlRefusedError("host does not resolve");
  if (!addresses.every(isPublicAddress)) {
    throw new UrlRefusedError("must not point to a loopback, private, link-local or reserved address");
  }
  return url;
}

async function resolveAll(resolver: Resolver, host: string): Promise<string[]> {
  try {
    return (await resolver(host)).map((a) => a.address);
  } catch {
    throw new UrlRefusedError("host does not resolve");
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request/net.connect that resolves with `resolver` and refuses the
 * connection unless every resolved address is allowed: the check applies to the very address
 * the socket connects to.
 */
export function guardedLookup(resolver: Resolver, allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = found.filter((a) => wanted === undefined || a.family === wanted);
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "");
          return;
        }
        if (!allowPrivate && !addresses.every((a) => isPublicAddress(a.address))) {
          const err = new Error(`refused to connect to non-public address of ${hostname}`);
          callback(Object.assign(err, { code: "ESSRF" }), "");
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]?.address ?? "", addresses[0]?.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}
