// Draining on close (SIGTERM) without resetting a request that already reached us (CONTRACT 9).
//
// Node's server.close() destroys every keep-alive connection that has no request running
// ("idle"). But a connection looks idle while its next request still sits unread in the kernel
// (and PGlite, which runs on the event loop, makes that window long): destroying such a socket
// resets a request the client has already sent. So idle connections are closed in two steps:
// a sweep marks the idle ones, and only a sweep at least `shutdownIdleCloseMs` (default 1 s)
// later destroys those that stayed idle all along. A client that keeps the connection busy sends
// its next request within that time, even slowed by a loaded machine (a window as short as one
// sweep lets a request arrive as the socket closes, and the client gets ECONNRESET); that
// request is answered, while closing, with 503 and `Connection: close` (a problem+json
// `unavailable` with Retry-After: another instance can take it at once), and answers of requests
// still running carry `Connection: close` too. Only a connection idle for that long is closed
// under a client, the race every HTTP/1.1 server has with keep-alive. (At 0, the second
// sweep closes it: the test apps' setting, whose own clients are done when they close.)
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { sendProblem } from "./error-handler.ts";

const SWEEP_EVERY_MS = 50;
/** Retry-After of a request refused while draining: another instance (or this one restarted) takes it. */
export const DRAINING_RETRY_AFTER_SECONDS = 1;

interface Tracked {
  /** Requests on this socket not yet answered. */
  active: number;
  /** Requests seen on this socket; a sweep's mark is void once it changes. */
  seen: number;
  /** `seen` when a sweep found the socket idle, or undefined. */
  markedAt: number | undefined;
  /** When that sweep found it idle (performance.now()). */
  idleSince: number;
}

export function registerGracefulClose(app: FastifyInstance, idleCloseMs: number, publicUrl: string): void {
  let closing = false;
  let sweeper: NodeJS.Timeout | undefined;
  const sockets = new Map<Socket, Tracked>();

  app.server.on("connection", (socket: Socket) => {
    sockets.set(socket, { active: 0, seen: 0, markedAt: undefined, idleSince: 0 });
    socket.once("close", () => sockets.delete(socket));
  });
  app.server.on("request", (req, res) => {
    const tracked = sockets.get(req.socket as Socket);
    if (!tracked) return;
    tracked.active++;
    tracked.seen++;
    tracked.markedAt = undefined;
    res.once("close", () => {
      tracked.active--;
    });
  });

  /** Destroys the connections idle since a sweep `idleCloseMs` ago or more; marks the others. */
  const sweep = () => {
    const now = performance.now();
    for (const [socket, tracked] of sockets) {
      if (tracked.active > 0) continue;
      if (tracked.markedAt !== tracked.seen) {
        tracked.markedAt = tracked.seen;
        tracked.idleSince = now;
      } else if (now - tracked.idleSince >= idleCloseMs) socket.destroy();
    }
  };
  // server.close() calls this; Fastify's close calls server.close() right after preClose.
  app.server.closeIdleConnections = sweep;

  app.addHook("preClose", async () => {
    closing = true;
    sweeper = setInterval(sweep, SWEEP_EVERY_MS);
    sweeper.unref();
  });
  // Fastify's return503OnClosing is off (app.ts): its answer is plain JSON without Retry-After.
  app.addHook("onRequest", (request, reply, done) => {
    if (!closing) return done();
    reply.header("retry-after", String(DRAINING_RETRY_AFTER_SECONDS));
    sendProblem(publicUrl, request, reply, "unavailable", "The server is shutting down; retry the request");
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });
  app.addHook("onClose", async () => {
    clearInterval(sweeper);
  });
}
