// The CLI's end of the control socket (control-socket.ts is the server's): the socket's path and
// one exchange, one JSON line each way. Kept apart from the server's end, which runs commands,
// so that a CLI talking to a running server loads nothing but node:net (docs/decisions/0005).
import net from "node:net";
import path from "node:path";
import type { CliRequest } from "./requests.ts";

export type ControlAnswer =
  | { ok: true; result: unknown; text: string }
  | { ok: false; error: { code: string; message: string; errors?: unknown } };

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, "control", "cli.sock");
}

/**
 * One attempt at the server holding `dataDir`, before the CLI loads the database layer:
 * undefined when no server listens there (no socket, a dead server's socket, or one this user
 * may not open), and the CLI goes on to open the directory itself, as without a server.
 */
export async function tryServer(dataDir: string, request: CliRequest): Promise<ControlAnswer | undefined> {
  try {
    return await exchange(controlSocketPath(dataDir), request);
  } catch {
    return undefined;
  }
}

/**
 * Sends `request` to the server holding `dataDir`. A server still starting (lock taken, socket
 * not yet listening) is waited for up to `waitMs`; undefined when nothing answers by then.
 */
export async function sendToServer(
  dataDir: string,
  request: CliRequest,
  waitMs = 60_000,
): Promise<ControlAnswer | undefined> {
  const socketPath = controlSocketPath(dataDir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await exchange(socketPath, request);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ECONNREFUSED") || Date.now() > deadline) {
        if (code === "EACCES") throw err;
        return undefined;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function exchange(socketPath: string, request: CliRequest): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
    });
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        resolve(JSON.parse(buffer) as ControlAnswer);
      } catch {
        reject(new Error("The server's answer on the control socket was not JSON"));
      }
    });
  });
}
