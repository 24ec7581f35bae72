// The fuzzer's HTTP client: node:http, so a request can carry exactly the bytes, headers and
// path it was generated with (fetch would normalize them), from any loopback source address
// (127.0.0.2, …: per-address rate limits see different clients).
import http from "node:http";

export interface RawRequest {
  method: string;
  /** Path and query, already percent-encoded as it goes on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  localAddress?: string;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

const agent = new http.Agent({ keepAlive: false });

export function send(origin: URL, request: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: origin.hostname,
        port: origin.port,
        method: request.method,
        path: request.target,
        headers: {
          ...request.headers,
          ...(request.body ? { "content-length": String(request.body.length) } : {}),
        },
        ...(request.localAddress ? { localAddress: request.localAddress } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        // An event stream never ends by itself: its first chunk is the answer, then hang up.
        if (String(res.headers["content-type"]).startsWith("text/event-stream")) {
          res.once("data", (c: Buffer) => {
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: c,
              ms: performance.now() - started,
            });
            req.destroy();
          });
          return;
        }
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    if (request.body) req.end(request.body);
    else req.end();
  });
}
