// Draining on close (SIGTERM): Fastify stops accepting connections and closes the idle ones once,
// but a keep-alive connection whose request is still running becomes idle only after its answer
// and would then hold server.close() open until the client's keep-alive ends. So while closing,
// answers carry `Connection: close`, and idle connections are swept until the server is closed.
import type { FastifyInstance } from "fastify";

const SWEEP_EVERY_MS = 50;

export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook("preClose", async () => {
    closing = true;
    sweeper = setInterval(() => app.server.closeIdleConnections(), SWEEP_EVERY_MS);
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
