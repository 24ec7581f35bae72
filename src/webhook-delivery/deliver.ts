// One delivery attempt: a POST with a timeout, no redirects (node:http never follows them, and a
// 3xx is not 2xx, so it fails), the SSRF guard applied to the address the socket connects to.
// It never throws: every outcome, including a refused address, is a result to record.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { bareHost, guardedLookup, isPublicAddress, type Resolver } from "./url-guard.ts";

export const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptResult {
  ok: boolean;
  statusCode: number | undefined;
  durationMs: number;
  error: string | undefined;
  /** The first 1 KiB of the answer's body. */
  responseBody: string | undefined;
  retryAfter: string | undefined;
}

export interface DelivererOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolver: Resolver;
  userAgent: string;
}

export interface Deliverer {
  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
  close(): void;
}

export function createDeliverer(options: DelivererOptions): Deliverer {
  const lookup = guardedLookup(options.resolver, options.allowPrivate);
  // Kept-alive sockets make repeated deliveries to one receiver cheap; each new socket still
  // passes the guard in `lookup` at connect time.
  const agentOptions = { keepAlive: true, maxSockets: 50, lookup } as http.AgentOptions;
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  async function post(rawUrl: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const finish = (partial: Partial<AttemptResult>): AttemptResult => ({
      ok: false,
      statusCode: undefined,
      error: undefined,
      responseBody: undefined,
      retryAfter: undefined,
      ...partial,
      durationMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return finish({ error: "invalid URL" });
    }
    // net.connect skips `lookup` for IP literals, so those are checked here.
    const host = bareHost(url);
    if (!options.allowPrivate && net.isIP(host) && !isPublicAddress(host)) {
      return finish({ error: "refused to connect to a non-public address" });
    }
    const isHttps = url.protocol === "https:";
    const payload = Buffer.from(body, "utf8");
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      let current: http.ClientRequest | undefined;
      const done = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(() => {
        done(finish({ error: `timeout after ${options.timeoutMs} ms` }));
        current?.destroy();
      }, options.timeoutMs);
      const send = (retried: boolean) => {
        const req = (isHttps ? https : http).request(url, {
          method: "POST",
          agent: isHttps ? agents.https : agents.http,
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": String(payload.length),
            "user-agent": options.userAgent,
          },
        });
        current = req;
        req.on("error", (err: NodeJS.ErrnoException) => {
          // A kept-alive socket the receiver closed while idle fails as the request goes out: the
          // receiver never read it. Sent once more on a new connection (Node's documented remedy,
          // `request.reusedSocket`); delivery is at-least-once, so a receiver that did read it
          // dedupes by event id as it must anyway (CONTRACT 7).
          if (!retried && !settled && req.reusedSocket && err.code === "ECONNRESET") send(true);
          else done(finish({ error: describeError(err) }));
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const statusCode = res.statusCode ?? 0;
          const complete = () => {
            // PostgreSQL text holds no NUL, and a receiver may answer one: kept as U+FFFD, so the
            // attempt is recorded on every path (a refused write would end in a resend).
            const bodyText = Buffer.concat(chunks)
              .subarray(0, RESPONSE_BODY_LIMIT)
              .toString("utf8")
              .replaceAll("\u0000", "\uFFFD");
            const retryAfter = res.headers["retry-after"];
            done(
              finish({
                ok: statusCode >= 200 && statusCode < 300,
                statusCode,
                responseBody: bodyText,
                retryAfter: typeof retryAfter === "string" ? retryAfter : undefined,
                error: statusCode >= 200 && statusCode < 300 ? undefined : `HTTP ${statusCode}`,
              }),
            );
          };
          res.on("data", (chunk: Buffer) => {
            if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
            size += chunk.length;
            // Enough kept: stop reading a large answer rather than wait for all of it.
            if (size >= RESPONSE_BODY_LIMIT) {
              complete();
              res.destroy();
            }
          });
          res.on("end", complete);
          res.on("error", (err) => done(finish({ statusCode, error: describeError(err) })));
        });
        req.end(payload);
      };
      send(false);
    });
  }

  return {
    post,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === "ESSRF") return err.message;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
