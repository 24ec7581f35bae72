// One open event stream after its answer's headers: what it writes, when it reads, and when it
// ends. It ends when its client goes, when its events cannot be read (the client reconnects with
// Last-Event-ID and loses nothing), or with its credential (CONTRACT 12: revoked, expired, or a
// scope it needs gone), told by the wake-ups (stream-wake-ups.ts) or, for an access token's
// expiry, by a timer of its own.
import type { ServerResponse } from "node:http";
import type { Principal } from "../../auth/principal.ts";
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { readStream, STREAM_PAGE, type StreamCursor, type StreamEvent } from "./event-stream.service.ts";
import { credentialStanding } from "./stream-credential.ts";
import type { WakeableStream } from "./stream-wake-ups.ts";

/** setTimeout's longest delay; a later end is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Log {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface StreamSessionOptions {
  ctx: ServiceContext;
  res: ServerResponse;
  log: Log;
  vendorId: string;
  credential: Principal["credential"];
  types: readonly string[];
  /** The scopes whose loss ends the stream (stream-credential.ts scopesStreamNeeds). */
  needs: readonly Scope[];
  cursor: StreamCursor;
  heartbeatMs: number;
  /** Called once, when the stream ends, whatever ended it. */
  onClose(): void;
}

export interface StreamSession {
  stream: WakeableStream;
  /** Hands over what stops the wake-ups for this stream, called when it ends. */
  follow(unfollow: () => void): void;
  close(): void;
}

/** One SSE message; `data` is one line, as JSON.stringify writes no newline. */
export function sseMessage(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function startStreamSession(options: StreamSessionOptions): StreamSession {
  const { ctx, res, log, vendorId, credential, types, needs } = options;
  let cursor = options.cursor;
  let closed = false;
  let unfollow: (() => void) | undefined;
  let expiry: NodeJS.Timeout | undefined;
  /** Waiting for the client to read what was written; `owed`: a horizon to read up to then. */
  let draining = false;
  let owed: string | undefined;
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), options.heartbeatMs);

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    unfollow?.();
    options.onClose();
    res.end();
  };
  res.on("close", close);
  // A client gone before the listener was attached would hold its shop's slot for good.
  if (!res.socket || res.socket.destroyed) setImmediate(close);

  // The database is away: end the stream; the client reconnects with Last-Event-ID and loses
  // nothing, where a stream kept open would only pretend to be live.
  const fail = (error: unknown) => {
    if (closed) return;
    log.warn({ err: error }, "event stream ended: events could not be read");
    close();
  };
  const endWithCredential = (reason: string) => {
    if (closed) return;
    log.info({ reason }, "event stream ended with its credential");
    close();
  };
  /** An access token ends by itself: the stream with it, without waiting to be told. */
  const watchExpiry = (expiresAt: Date | undefined) => {
    clearTimeout(expiry);
    if (expiresAt === undefined || closed) return;
    const left = expiresAt.getTime() - ctx.now().getTime();
    if (left <= 0) return endWithCredential("expired");
    expiry = setTimeout(() => watchExpiry(expiresAt), Math.min(left, MAX_TIMER_MS));
  };
  if (credential.kind === "oauth") watchExpiry(credential.expiresAt);

  const stream: WakeableStream = {
    vendorId,
    credential,
    async poll(horizon) {
      // A client slow to read holds only its own stream: the wake-ups wait for the reads, never
      // for a socket to drain; a stream still draining reads on once it has.
      if (draining) {
        if (owed === undefined || horizon > owed) owed = horizon;
        return;
      }
      try {
        for (;;) {
          if (closed) return;
          const page = await readStream(ctx, vendorId, types, cursor, horizon);
          if (closed) return;
          let flowing = true;
          for (const event of page.events) flowing = res.write(sseMessage(event));
          cursor = page.cursor;
          const more = page.events.length === STREAM_PAGE;
          if (!flowing) {
            draining = true;
            owed = more ? horizon : undefined;
            res.once("drain", () => {
              draining = false;
              const next = owed;
              owed = undefined;
              if (next !== undefined) void stream.poll(next);
            });
            return;
          }
          if (!more) return;
        }
      } catch (error) {
        fail(error);
      }
    },
    async recheck() {
      if (closed) return;
      try {
        const standing = await credentialStanding(ctx, credential);
        if (!standing) return endWithCredential("revoked");
        if (needs.some((scope) => !standing.scopes.has(scope))) return endWithCredential("scope");
        watchExpiry(standing.expiresAt);
      } catch (error) {
        fail(error);
      }
    },
    fail,
  };

  return {
    stream,
    follow(stop) {
      if (closed) stop();
      else unfollow = stop;
    },
    close,
  };
}
