// The CLI's way into a running PGlite server. PGlite serves one process per data directory, so
// while the server holds DATA_DIR the CLI cannot open the database; instead the server listens on
// a Unix socket inside DATA_DIR and runs the CLI's request itself (CONTRACT 9: the CLI works
// whether or not the server runs). Only the owner of the data directory may connect: the socket
// lives in a 0700 directory and is itself 0600, so file permissions are the authentication.
// Protocol: one JSON line each way per connection.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { ServiceContext } from "../context.ts";
import { AppError } from "../errors.ts";
import { executeCommand } from "./commands.ts";
import { type ControlAnswer, controlSocketPath } from "./control-client.ts";
import type { CliRequest } from "./requests.ts";

const MAX_REQUEST_BYTES = 64 * 1024;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ControlSocket {
  readonly path: string;
  close(): Promise<void>;
}

export async function startControlSocket(
  dataDir: string,
  ctx: ServiceContext,
  settings: { publicUrl: string },
  log: Log,
): Promise<ControlSocket> {
  const socketPath = controlSocketPath(dataDir);
  const dir = path.dirname(socketPath);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  // The caller holds the data directory's lock: a socket file left here is a dead server's.
  fs.rmSync(socketPath, { force: true });

  const server = net.createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.setTimeout(60_000, () => socket.destroy());
    socket.on("error", () => {});
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_REQUEST_BYTES) return socket.destroy();
      const newline = buffer.indexOf("\n");
      if (newline === -1) return;
      socket.pause();
      void answer(buffer.slice(0, newline)).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
  });

  async function answer(line: string): Promise<ControlAnswer> {
    let request: CliRequest;
    try {
      request = JSON.parse(line) as CliRequest;
      if (typeof request !== "object" || request === null) throw new Error("not an object");
    } catch {
      return { ok: false, error: { code: "validation_failed", message: "The request is not JSON" } };
    }
    try {
      const { result, text } = await executeCommand(ctx, request, settings);
      // Never the arguments: they may hold a password.
      log.info({ command: request.command }, "CLI command run through the control socket");
      return { ok: true, result, text };
    } catch (err) {
      if (err instanceof AppError) {
        return { ok: false, error: { code: err.code, message: err.message, errors: err.extra.errors } };
      }
      log.error({ err, command: request.command }, "CLI command failed");
      return {
        ok: false,
        error: { code: "internal_error", message: "The server could not run the command" },
      };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}
