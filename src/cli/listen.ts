// `vendor-api listen` (CONTRACT 10), like `stripe listen`: follows a shop's live
// event stream (GET /api/vendor/events/stream) over HTTP with an API key and forwards each event to
// a local URL as a webhook delivery would arrive: the same body and headers, built by the one
// builder the dispatcher uses (webhook-delivery/delivery-request.ts), signed with a secret made for
// this run and printed at start. A system behind NAT (a desktop shop system, a developer's laptop)
// thus receives its webhooks. It needs no database and opens none: it is an HTTP client only.
//
// A dropped connection (the API restarts, a proxy cuts it, no heartbeat for a while) is
// reconnected with Last-Event-ID, the last event forwarded, so the server replays what came after
// it: nothing is lost and nothing forwarded twice. Events are forwarded one at a time, in order.
import { newId } from "../lib/ids.ts";
import { API_KEY_PREFIX } from "../modules/api-keys/api-keys.service.ts";
import { createDeliverer, type Deliverer } from "../webhook-delivery/deliver.ts";
import { buildDeliveryRequest } from "../webhook-delivery/delivery-request.ts";
import { generateWebhookSecret } from "../webhook-delivery/signing.ts";
import { systemResolver } from "../webhook-delivery/url-guard.ts";

export interface ListenArgs {
  apiUrl: string;
  apiKey: string;
  forwardTo: string;
  /** Event names to forward (the stream's `types`); all the key may read when absent. */
  events?: string[] | undefined;
}

export interface ListenIo {
  /** One line per event forwarded, and the start line (with the signing secret). */
  out: (line: string) => void;
  /** Connection news: connected, dropped, reconnecting. */
  err: (line: string) => void;
  /** Ends the listening (SIGINT, SIGTERM). */
  signal: AbortSignal;
  now?: () => Date;
}

/** Why listening cannot go on: the key is refused, the types are wrong. Exit status 1. */
export class ListenError extends Error {}

/** The server sends a heartbeat every 15 s: silence for longer than this is a dead connection. */
const IDLE_LIMIT_MS = 45_000;
/** The receiver's answer is awaited this long, as a delivery's (WEBHOOK_TIMEOUT_MS default). */
const FORWARD_TIMEOUT_MS = 10_000;
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;

interface SseEvent {
  id: string;
  event: string;
  data: string;
}

/** Parses `text/event-stream` blocks as they arrive; comments (heartbeats) only count as life. */
export function sseParser(onEvent: (event: SseEvent) => void) {
  let buffer = "";
  return (chunk: string) => {
    buffer += chunk.replaceAll("\r\n", "\n");
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Partial<SseEvent> = {};
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "id" || name === "event") fields[name] = value;
        else if (name === "data")
          fields.data = fields.data === undefined ? value : `${fields.data}\n${value}`;
      }
      if (fields.id && fields.event && fields.data !== undefined) onEvent(fields as SseEvent);
    }
  };
}

function streamUrl(args: ListenArgs): string {
  const url = new URL("/api/vendor/events/stream", args.apiUrl);
  if (args.events && args.events.length > 0) url.searchParams.set("types", args.events.join(","));
  return url.toString();
}

async function problemText(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const problem = JSON.parse(text) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? text;
  } catch {
    return text || res.statusText;
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * GETs `url`, following redirects within its origin only (listen-credentials.ts, rule 3): fetch
 * itself would follow one to any origin and send the X-Api-Key header there too. A redirect
 * elsewhere ends listening (ListenError), the key unsent; the operator may point --api-url there.
 */
async function getWithinOrigin(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Response> {
  let target = new URL(url);
  for (let hops = 0; ; hops++) {
    const res = await fetch(target, { headers, signal, redirect: "manual" });
    const location = res.headers.get("location");
    if (!REDIRECTS.has(res.status) || !location) return res;
    await res.body?.cancel();
    const next = URL.parse(location, target);
    if (!next || next.origin !== target.origin) {
      throw new ListenError(
        `the API redirected to another origin (${next?.origin ?? location}); the API key is not sent there (use that address as --api-url if you trust it)`,
      );
    }
    if (hops >= MAX_REDIRECTS) throw new ListenError(`the API redirected more than ${MAX_REDIRECTS} times`);
    target = next;
  }
}

/**
 * Listens until `io.signal` aborts. Throws ListenError when the server refuses for good (401,
 * 403, 400); anything else (a refused connection, a 5xx, a 429, a stream that ends) is retried
 * with backoff and Last-Event-ID.
 */
export async function listen(args: ListenArgs, io: ListenIo): Promise<void> {
  const now = io.now ?? (() => new Date());
  const secret = generateWebhookSecret();
  const deliverer: Deliverer = createDeliverer({
    timeoutMs: FORWARD_TIMEOUT_MS,
    // The point is a local receiver: 127.0.0.1, a LAN address.
    allowPrivate: true,
    resolver: systemResolver,
    userAgent: `vendor-api-webhooks/1.0 (+${new URL(args.apiUrl).origin}; vendor-api listen)`,
  });
  io.out(
    `Forwarding events from ${new URL(args.apiUrl).origin} to ${args.forwardTo}; signing secret ${secret}`,
  );
  let lastEventId: string | undefined;
  let backoff = BACKOFF_FIRST_MS;
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      io.signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });

  /** Forwards one event, in turn, and prints its line. */
  const forward = async (message: SseEvent) => {
    let event: { id: string; event: string; data: Record<string, unknown> };
    try {
      event = JSON.parse(message.data);
    } catch {
      io.err(`skipped a message that is not JSON (id ${message.id})`);
      return;
    }
    const request = buildDeliveryRequest(
      {
        deliveryId: newId(),
        eventId: event.id,
        eventType: event.event,
        data: event.data,
        secret,
        previousSecret: null,
        previousSecretExpiresAt: null,
      },
      now(),
    );
    const result = await deliverer.post(args.forwardTo, request.headers, request.body);
    const answer = result.statusCode === undefined ? `error: ${result.error}` : String(result.statusCode);
    io.out(
      `${now().toISOString()}  ${event.event} ${event.id}  -> POST ${args.forwardTo} [${answer}] ${result.durationMs} ms`,
    );
  };

  try {
    while (!io.signal.aborted) {
      const abort = new AbortController();
      const stop = () => abort.abort();
      io.signal.addEventListener("abort", stop);
      let idle: NodeJS.Timeout | undefined;
      // Forwarded strictly one after another: the parser queues, the chain sends. A reconnect
      // waits for it, so Last-Event-ID names the last event really forwarded.
      let chain = Promise.resolve();
      const alive = () => {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(new Error("no heartbeat")), IDLE_LIMIT_MS);
      };
      try {
        const headers: Record<string, string> = { accept: "text/event-stream" };
        // An API key goes in X-Api-Key, an OAuth access token as a Bearer token.
        if (args.apiKey.startsWith(API_KEY_PREFIX)) headers["x-api-key"] = args.apiKey;
        else headers.authorization = `Bearer ${args.apiKey}`;
        if (lastEventId) headers["last-event-id"] = lastEventId;
        const res = await getWithinOrigin(streamUrl(args), headers, abort.signal);
        if (res.status === 400 || res.status === 401 || res.status === 403 || res.status === 404) {
          throw new ListenError(`the API refused the stream (${res.status}): ${await problemText(res)}`);
        }
        if (res.status !== 200 || !res.body) {
          const retryAfter = Number(res.headers.get("retry-after"));
          io.err(`the API answered ${res.status}: ${await problemText(res)}; trying again`);
          await wait(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff);
          backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
          continue;
        }
        io.err(`connected to ${streamUrl(args)}${lastEventId ? ` (resuming after ${lastEventId})` : ""}`);
        backoff = BACKOFF_FIRST_MS;
        alive();
        const parse = sseParser((message) => {
          chain = chain.then(async () => {
            await forward(message);
            lastEventId = message.id;
          });
        });
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          alive();
          parse(decoder.decode(chunk, { stream: true }));
        }
        await chain;
        if (!io.signal.aborted) io.err("the stream ended; reconnecting");
      } catch (err) {
        if (err instanceof ListenError) throw err;
        await chain;
        if (io.signal.aborted) break;
        const reason =
          err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : "";
        io.err(`connection lost (${reason}); reconnecting in ${backoff} ms`);
        await wait(backoff);
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      } finally {
        clearTimeout(idle);
        io.signal.removeEventListener("abort", stop);
      }
    }
  } finally {
    deliverer.close();
  }
}
