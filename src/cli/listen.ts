// `vendor-api listen` (CONTRACT 10), like `stripe listen`: follows a shop's live event stream
// (GET /api/vendor/events/stream) over HTTP with an API key and forwards each event to a local URL
// as a webhook delivery would arrive, so a system behind NAT (a desktop shop system, a developer's
// laptop) receives its webhooks. It needs no database and opens none: it is an HTTP client only.
//
// The forwarding itself (stream, reconnects with Last-Event-ID, signing, the secret kept per
// machine and account) has one home, the client package's forwarding.js, which its own
// `vendor-api-listen` bin runs too: the same deliveries, the same secret, from either tool.
import {
  accountOf,
  accountSecret,
  listen as forwardEvents,
  ListenError,
} from "../../clients/typescript/src/forwarding.js";

export { ListenError };

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

/** Listens until `io.signal` aborts; ListenError when the server refuses for good. */
export async function listen(args: ListenArgs, io: ListenIo): Promise<void> {
  const secret = accountSecret(args.apiUrl, await accountOf(args.apiUrl, args.apiKey, io.signal));
  io.out(
    `Forwarding events from ${new URL(args.apiUrl).origin} to ${args.forwardTo}; signing secret ${secret}`,
  );
  await forwardEvents({ ...args, secret, tool: "vendor-api listen" }, io);
}
