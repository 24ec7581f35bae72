// Draining on close (SIGTERM) without resetting a request that already reached us (CONTRACT 9).
//
// Node's server.close() destroys every keep-alive connection that has no request running
// ("idle"). But a connection looks idle while its next request still sits unread in the kernel
// (and PGlite, which runs on the event loop, makes that window long): destroying such a socket
// resets a request the client has already sent. So idle connections are closed in two steps:
// a sweep marks the idle ones, and only a later sweep (at least one event-loop turn, hence one
// read of every socket, later) destroys those that stayed idle. A request that arrives meanwhile
// is answered, while closing with 503 and `Connection: close` (Fastify's return503OnClosing);
// answers of requests still running carry `Connection: close` too.
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";

const SWEEP_EVERY_MS = 50;

interface Tracked {
  /** Requests on this socket not yet answered. */
  active: number;
  /** Requests seen on this socket; a sweep's mark is void once it changes. */
  seen: number;
  /** `seen` when a sweep found the socket idle, or undefined. */
  markedAt: number | undefined;
}

export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  let sweeper: NodeJS.Timeout | undefined;
  const sockets = new Map<Socket, Tracked>();

  app.server.on("connection", (socket: Socket) => {
    sockets.set(socket, { active: 0, seen: 0, markedAt: undefined });
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

  /** Destroys the connections found idle by an earlier sweep and still idle; marks the others. */
  const sweep = () => {
    for (const [socket, tracked] of sockets) {
      if (tracked.active > 0) continue;
      if (tracked.markedAt === tracked.seen) socket.destroy();
      else tracked.markedAt = tracked.seen;
    }
  };
  // server.close() calls this; Fastify's close calls server.close() right after preClose.
  app.server.closeIdleConnections = sweep;

  app.addHook("preClose", async () => {
    closing = true;
    sweeper = setInterval(sweep, SWEEP_EVERY_MS);
    sweeper.unref();
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (closing) reply.header("connection", "close");
    return payload;
  });
  app.addHook("onClose", async () => {
    clearInterval(sweeper);
  });
}
