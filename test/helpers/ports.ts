// Ports for servers a test names before they listen: an app whose PUBLIC_URL must carry its port,
// a child process told PORT or WORKER_PORT. Servers that can listen on port 0 and say where
// (receivers, proxies) should, and need none of this.
//
// The ports come from below the kernel's ephemeral range (net.ipv4.ip_local_port_range,
// 32768-60999 here). A port the kernel handed out for `listen(0)` is in that range, and once
// closed it may be given to any outgoing connection (a pg client, a fetch) before the server
// that was meant to have it listens: a PostgreSQL run once failed a file's start that way
// (EADDRINUSE on a port freePort had just returned), and a child's ~2 s start is a wide window.
// No outgoing connection is ever bound below the range, so only another test's server could take
// a port from there: each vitest worker walks its own lane of the range from a random point, and
// each port is tried with a listen before it is handed out.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";

const LOWEST = 10_000;
const LANES = 8;

function ephemeralStart(): number {
  try {
    const [low] = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    return Number(low) || 32_768;
  } catch {
    return 32_768; // not Linux: Linux's default
  }
}

const end = ephemeralStart();
const lane = Number(process.env.VITEST_POOL_ID ?? 0) % LANES;
const lanePorts = Math.floor((end - LOWEST) / LANES);
let turn = lanePorts > 0 ? crypto.randomInt(lanePorts) : 0;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** What the kernel gives `listen(0)`: where the range below the ephemeral one is too small. */
function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A port on 127.0.0.1 that nothing listens on, and that no outgoing connection will be given. */
export async function freePort(): Promise<number> {
  if (lanePorts < 100) return anyPort();
  for (let tries = 0; tries < 1_000; tries++) {
    const port = LOWEST + (turn++ % lanePorts) * LANES + lane;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port below ${end} in lane ${lane} after 1,000 tries`);
}
