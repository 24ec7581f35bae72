// The client address as per-address budgets count it: one spelling per address, and one key per
// IPv6 /64. Counting the exact string let one client spend several budgets ("::ffff:192.0.2.1"
// and "192.0.2.1", "2001:db8::1" and "2001:DB8:0:0::1"), and a single IPv6 host holds a whole
// /64 (SLAAC, privacy addresses): a budget per address would be one per request.
import ipaddr from "ipaddr.js";

export function clientAddressKey(ip: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(ip); // IPv4-mapped IPv6 becomes IPv4
  } catch {
    return ip; // not an address (a unix socket, a test's inject): its own key
  }
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}
