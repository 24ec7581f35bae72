// GET /api/vendor/events/stream (CONTRACT 10): the vendor's events as Server-Sent Events, for a
// system that cannot receive webhooks (behind NAT, a desktop). Each event is `id:` its id,
// `event:` its type and `data:` the event as GET /events/{id} answers it; a reconnect with
// Last-Event-ID replays what came after that event, then the stream goes live. A comment line
// every heartbeat keeps proxies from closing an idle stream and lets the client notice a dead one.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { ServiceContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { principalOf } from "../../http/authenticate.ts";
import { authenticatedErrors, problemResponses } from "../../http/common-schemas.ts";
import { eventTypes } from "./catalog.ts";
import {
  readStream,
  STREAM_PAGE,
  type StreamEvent,
  streamStart,
  streamTypes,
} from "./event-stream.service.ts";

export interface EventStreamOptions {
  ctx: ServiceContext;
  heartbeatMs: number;
  pollMs: number;
  /** Open streams one shop may hold on this process; one more is 429. */
  maxPerShop: number;
}

const StreamQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: `Comma-separated event names to receive (default: every event the credential may read): ${eventTypes.join(", ")}`,
    }),
  ),
});

/** One SSE message; `data` is one line, as JSON.stringify writes no newline. */
export function sseMessage(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event)}\n\n`;
}

export const eventStreamRoutes: FastifyPluginAsyncTypebox<EventStreamOptions> = async (app, options) => {
  const { ctx } = options;
  const openByShop = new Map<string, number>();
  const closers = new Set<() => void>();
  // Open streams never end by themselves: a server that closes ends them, and clients reconnect
  // (elsewhere, with Last-Event-ID) instead of holding the shutdown for its whole grace period.
  app.addHook("preClose", async () => {
    for (const close of [...closers]) close();
  });

  app.get(
    "/events/stream",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags: ["Events"],
        operationId: "streamEvents",
        summary: "Follow events live (Server-Sent Events)",
        description:
          "A `text/event-stream` of the vendor's events, oldest first: `id:` is the event id, `event:` its name, " +
          "`data:` the event as `GET /api/vendor/events/{id}` returns it. Send `Last-Event-ID` (as EventSource does on " +
          "reconnect) to first receive every event after that one, within the events' 30 days, then live events. " +
          "A comment line (`: heartbeat`) comes every 15 seconds. Each shop may hold a few streams open at once; " +
          "one more is 429 with Retry-After.",
        querystring: StreamQuery,
        headers: Type.Object({
          "last-event-id": Type.Optional(
            Type.String({ maxLength: 64, description: "The id of the last event received" }),
          ),
        }),
        response: {
          200: {
            description: "The event stream",
            content: {
              "text/event-stream": {
                schema: Type.String(),
                example:
                  ': stream open\n\nid: m1cf9xus1c7inljvoolvm834\nevent: order.created\ndata: {"id":"m1cf9xus1c7inljvoolvm834","event":"order.created","data":{},"createdAt":"2026-11-27T10:15:00.000Z"}\n\n',
              },
            },
          },
          ...problemResponses(...authenticatedErrors, 429),
        },
      },
    },
    async (request, reply) => {
      const { vendorId, scopes } = principalOf(request);
      const types = streamTypes(scopes, request.query.types);
      const lastEventId = request.headers["last-event-id"];
      let cursor = await streamStart(
        ctx,
        vendorId,
        typeof lastEventId === "string" ? lastEventId : undefined,
      );
      const open = openByShop.get(vendorId) ?? 0;
      if (open >= options.maxPerShop) {
        throw new AppError(
          "rate_limited",
          `This shop already has ${open} event streams open; close one or wait`,
          { headers: { "retry-after": String(Math.ceil(options.heartbeatMs / 1000)) } },
        );
      }
      openByShop.set(vendorId, open + 1);

      reply.hijack();
      const res = reply.raw;
      // The headers the hooks set so far (request id, rate limits) go out with the stream's own.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) res.setHeader(name, value);
      }
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        // Set by an onSend hook on every other answer (http/no-store.ts), which a hijacked reply skips.
        "x-content-type-options": "nosniff",
        "x-accel-buffering": "no",
      });
      res.write(": stream open\n\n");

      let closed = false;
      let pollTimer: NodeJS.Timeout | undefined;
      const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), options.heartbeatMs);
      const close = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        clearTimeout(pollTimer);
        closers.delete(close);
        const left = (openByShop.get(vendorId) ?? 1) - 1;
        if (left > 0) openByShop.set(vendorId, left);
        else openByShop.delete(vendorId);
        res.end();
      };
      closers.add(close);
      res.on("close", close);

      const poll = async () => {
        try {
          for (;;) {
            const page = await readStream(ctx, vendorId, types, cursor);
            if (closed) return;
            for (const event of page.events) {
              if (!res.write(sseMessage(event))) await new Promise((resolve) => res.once("drain", resolve));
              if (closed) return;
            }
            cursor = page.cursor;
            if (page.events.length < STREAM_PAGE) break;
          }
        } catch (error) {
          // The database is away: end the stream; the client reconnects with Last-Event-ID and
          // loses nothing, where a stream kept open would only pretend to be live.
          request.log.warn({ err: error }, "event stream ended: events could not be read");
          close();
          return;
        }
        if (!closed) pollTimer = setTimeout(poll, options.pollMs);
      };
      await poll();
    },
  );
};
