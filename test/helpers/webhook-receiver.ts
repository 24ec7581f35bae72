// A real HTTP receiver on 127.0.0.1 that records every request (raw body bytes and headers) and
// answers as the test tells it: outbound HTTP in tests goes only to receivers like this one.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  body: any;
  at: number;
  /** Settles when the request is no longer open: answered, or the sender gave up or went away. */
  closed: Promise<void>;
}

export type Responder = (
  req: ReceivedRequest,
  index: number,
) => {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** The answer goes once this settles (a test holds a request open, then lets it go). */
  until?: Promise<unknown>;
};

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  respond: Responder;
  /** Resolves once `n` requests arrived (or rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /**
   * The most requests it ever held open at once (arrived, and neither answered nor given up by
   * the sender): an endpoint's concurrency as the receiver sees it, whatever the clocks say.
   */
  readonly maxOpen: number;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => boolean> = [];
  let open = 0;
  let maxOpen = 0;
  const receiver: Receiver = {
    url: "",
    requests,
    respond,
    get maxOpen() {
      return maxOpen;
    },
    waitFor(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length >= n) {
            clearTimeout(timer);
            resolve(requests);
            return true;
          }
          return false;
        };
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} requests, got ${requests.length}`)),
          timeoutMs,
        );
        if (!check()) waiters.push(check);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    // Answered, or the sender gave up (its timeout aborted the request, or its process died and
    // the kernel closed the connection): either way no longer open.
    const closed = new Promise<void>((resolve) => res.on("close", resolve));
    void closed.then(() => open--);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString("utf8"));
      } catch {
        body = undefined;
      }
      const entry: ReceivedRequest = { headers: req.headers, rawBody, body, at: Date.now(), closed };
      const index = requests.length;
      requests.push(entry);
      for (const w of waiters.splice(0)) if (!w()) waiters.push(w);
      const answer = receiver.respond(entry, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? "");
      };
      if (answer.until) void answer.until.finally(send);
      else if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Waits until `fn` returns a truthy value (polling), or fails after timeoutMs. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
