// GET /api/vendor/events/stream (CONTRACT 10): the vendor's events as Server-Sent Events, for a
// system that cannot receive webhooks (behind NAT, a desktop). Each event is `id:` its id,
// `event:` its type and `data:` the event as GET /events/{id} answers it; a reconnect with
// Last-Event-ID replays what came after that event, then the stream goes live. A comment line
// every heartbeat keeps proxies from closing an idle stream and lets the client notice a dead one.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { ServiceContext } from "../../context.ts";
import type { Database } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import { principalOf } from "../../http/authenticate.ts";
import { eventTypes } from "./catalog.ts";
import { streamStart, streamTypes } from "./event-stream.service.ts";
import { startStreamSession } from "./event-stream.session.ts";
import { scopesStreamNeeds } from "./stream-credential.ts";
import { createStreamWakeUps } from "./stream-wake-ups.ts";

export interface EventStreamOptions {
  ctx: ServiceContext;
  /** Where notifications come from (stream-wake-ups.ts). */
  database: Pick<Database, "listen">;
  heartbeatMs: number;
  /** How soon a stream polls again while catching up, or while notifications cannot be trusted. */
  pollMs: number;
  /** The fallback poll of an idle stream. */
  idlePollMs: number;
  /** Open streams one shop may hold on this process; one more is 429. */
  maxPerShop: number;
}

/** The scope the route needs: losing it ends an open stream, as losing an event type's does. */
const STREAM_SCOPE = "webhooks:read";

const StreamQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: `Comma-separated event names to receive (default: every event the credential may read): ${eventTypes.join(", ")}`,
    }),
  ),
});

export const eventStreamRoutes: FastifyPluginAsyncTypebox<EventStreamOptions> = async (app, options) => {
  const { ctx } = options;
  const openByShop = new Map<string, number>();
  const closers = new Set<() => void>();
  const wakeUps = createStreamWakeUps(ctx, options.database, options);
  app.addHook("onClose", () => wakeUps.close());
  // Open streams never end by themselves: a server that closes ends them, and clients reconnect
  // (elsewhere, with Last-Event-ID) instead of holding the shutdown for its whole grace period.
  app.addHook("preClose", async () => {
    for (const close of [...closers]) close();
  });

  app.get(
    "/events/stream",
    {
      config: { scope: STREAM_SCOPE },
      schema: {
        tags: ["Events"],
        operationId: "streamEvents",
        summary: "Follow events live (Server-Sent Events)",
        description:
          "A `text/event-stream` of the vendor's events, oldest first: `id:` is the event id, `event:` its name, " +
          "`data:` the event as `GET /api/vendor/events/{id}` returns it. Send `Last-Event-ID` (as EventSource does on " +
          "reconnect) to first receive every event after that one, within the events' 30 days, then live events. " +
          "A comment line (`: heartbeat`) comes every 15 seconds. Each shop may hold a few streams open at once; " +
          "one more is 429 with Retry-After. A stream ends within 2 seconds of its credential's revocation or expiry, " +
          "or of losing a scope it needs (a reconnect then gets 401 or 403).",
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
        },
      },
    },
    async (request, reply) => {
      const { vendorId, scopes, credential } = principalOf(request);
      const types = streamTypes(scopes, request.query.types);
      const lastEventId = request.headers["last-event-id"];
      const cursor = await streamStart(
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

      const session = startStreamSession({
        ctx,
        res,
        log: request.log,
        vendorId,
        credential,
        types,
        needs: scopesStreamNeeds(STREAM_SCOPE, types),
        cursor,
        heartbeatMs: options.heartbeatMs,
        onClose: () => {
          closers.delete(session.close);
          // The slot is free at once: the shop's next stream is not refused for this one.
          const left = (openByShop.get(vendorId) ?? 1) - 1;
          if (left > 0) openByShop.set(vendorId, left);
          else openByShop.delete(vendorId);
        },
      });
      closers.add(session.close);
      session.follow(await wakeUps.add(session.stream));
      // A change committed between authentication and listening was told to nobody: ask once.
      await session.stream.recheck();
    },
  );
};
