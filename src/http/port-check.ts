// A busy port is an operator's mistake, not a crash: one line naming the port and the variable,
// found before the database opens (PGlite takes seconds to start) and again at the real listen.
import net from "node:net";

export class PortUnavailableError extends Error {
  constructor(host: string, port: number, variable: string, code: string | undefined) {
    super(
      code === "EACCES"
        ? `Port ${port} on ${host} needs privileges this process lacks: choose another with ${variable}.`
        : `Port ${port} on ${host} is already in use (another vendor-api?): stop that process or set ${variable}.`,
    );
    this.name = "PortUnavailableError";
  }
}

export function isPortError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "EADDRINUSE" || code === "EACCES";
}

/** Resolves when `port` can be bound on `host` now; port 0 (any free port) always can. */
export async function assertPortFree(host: string, port: number, variable: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (err: NodeJS.ErrnoException) =>
      reject(isPortError(err) ? new PortUnavailableError(host, port, variable, err.code) : err),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
