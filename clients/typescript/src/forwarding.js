// The forwarding logic of `listen`, in one home for both tools that run it: the client package's
// `vendor-api-listen` bin (cli.ts) and the server's `vendor-api listen` (src/cli/listen.ts). Plain
// JavaScript with its declarations beside it (forwarding.d.ts), so the server's build, which
// compiles only src/, imports it as it is; it uses Node's built-ins only and imports nothing of
// the server.
//
// - It follows GET /api/vendor/events/stream with an API key (X-Api-Key) or an OAuth access token
//   (Bearer), and forwards each event to a URL as a webhook delivery would arrive: the same body
//   `{ id, event, data, timestamp }` and headers, signed with a Standard Webhooks secret.
// - A dropped connection (the API restarts, a proxy cuts it, no heartbeat for a while) is
//   reconnected with Last-Event-ID, the last event forwarded, so nothing is lost and nothing
//   forwarded twice. Events are forwarded one at a time, in order.
// - The key goes over https, or plain http to this machine only, and a redirect is followed only
//   within the API's origin: the key is never sent elsewhere.
// - The signing secret is kept per machine and account in the user's config directory, so the
//   receiver set up for one run accepts the next.
import { createHash, createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import { isIP } from "node:net";
import os from "node:os";
import path from "node:path";

/** Why listening cannot go on: the key is refused, the types are wrong. */
export class ListenError extends Error {}

/** The server sends a heartbeat every 15 s: silence for longer than this is a dead connection. */
const IDLE_LIMIT_MS = 45_000;
/** The receiver's answer is awaited this long, as a delivery's (WEBHOOK_TIMEOUT_MS default). */
export const FORWARD_TIMEOUT_MS = 10_000;
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const API_KEY_PREFIX = "vk_";

/** A delivery id shaped like the service's own (24 characters of [a-z0-9]). */
export function newDeliveryId() {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  // 252 = 7 × 36: bytes above it are dropped, so every character is equally likely.
  let id = "";
  while (id.length < 24) {
    for (const byte of randomBytes(32)) if (byte < 252 && id.length < 24) id += alphabet[byte % 36];
  }
  return id;
}

export function generateSecret() {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The key of webhook-signature: a whsec_ secret's decoded bytes, else (whsk_) its UTF-8. */
export function signingKey(secret) {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

/**
 * The request of one delivery of `event` signed with `secret`, as the service's dispatcher builds
 * it (src/webhook-delivery/delivery-request.ts): body, X-Service-* and Standard Webhooks headers.
 */
export function buildDelivery({ deliveryId, eventId, eventType, data, secret, sentAt }) {
  const body = JSON.stringify({ id: eventId, event: eventType, data, timestamp: sentAt.toISOString() });
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const standard = createHmac("sha256", signingKey(secret))
    .update(`${eventId}.${timestamp}.`)
    .update(body)
    .digest("base64");
  return {
    body,
    headers: {
      "x-service-signature": createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex"),
      "webhook-id": eventId,
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1,${standard}`,
      "x-service-event": eventType,
      "x-service-delivery": deliveryId,
    },
  };
}

/** POSTs one delivery; never throws: the answer's status, or the error, and how long it took. */
export async function postDelivery(url, request, { userAgent, timeoutMs = FORWARD_TIMEOUT_MS }) {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { ...request.headers, "content-type": "application/json", "user-agent": userAgent },
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return { statusCode: res.status, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    const reason =
      err?.name === "TimeoutError" ? "timeout" : (err?.cause?.message ?? err?.message ?? String(err));
    return { error: reason, durationMs: Math.round(performance.now() - started) };
  }
}

/** Parses `text/event-stream` blocks as they arrive; comments (heartbeats) only count as life. */
export function sseParser(onEvent) {
  let buffer = "";
  return (chunk) => {
    buffer += chunk.replaceAll("\r\n", "\n");
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = {};
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "id" || name === "event") fields[name] = value;
        else if (name === "data")
          fields.data = fields.data === undefined ? value : `${fields.data}\n${value}`;
      }
      if (fields.id && fields.event && fields.data !== undefined) onEvent(fields);
    }
  };
}

/** Whether `hostname` (as URL parses it) is this machine. */
export function isLoopbackHost(hostname) {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1";
  return false;
}

/** The reason `apiUrl` may not carry the key, or undefined when it may. */
export function apiUrlProblem(apiUrl) {
  const url = URL.parse(apiUrl);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return "must be an http(s) URL";
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return "must be https (plain http would show the API key to anyone on the way; it is allowed only to this machine: localhost, 127.0.0.1, [::1])";
  }
  return undefined;
}

function credentialHeaders(apiKey) {
  return apiKey.startsWith(API_KEY_PREFIX) ? { "x-api-key": apiKey } : { authorization: `Bearer ${apiKey}` };
}

async function problemText(res) {
  const text = await res.text().catch(() => "");
  try {
    const problem = JSON.parse(text);
    return problem.detail ?? problem.title ?? text;
  } catch {
    return text || res.statusText;
  }
}

/** GETs `url`, following redirects within its origin only; one elsewhere is a ListenError. */
async function getWithinOrigin(url, headers, signal) {
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
 * The account a credential belongs to, for the secret kept per account: the shop's id from
 * GET /api/vendor/profile, or, for a credential without profile:read, a digest of the credential.
 */
export async function accountOf(apiUrl, apiKey, signal) {
  const profileUrl = new URL("/api/vendor/profile", apiUrl);
  const headers = { accept: "application/json", ...credentialHeaders(apiKey) };
  let res;
  try {
    res = await getWithinOrigin(
      profileUrl.toString(),
      headers,
      signal ?? AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    );
  } catch (err) {
    if (err instanceof ListenError) throw err;
    throw new ListenError(
      `cannot reach the API at ${profileUrl.origin} (${err?.cause?.message ?? err?.message ?? err})`,
    );
  }
  // A refused key is told by the stream's own refusal, right after.
  if (res.ok) {
    const profile = await res.json();
    if (typeof profile.id === "string") return profile.id;
  } else await res.body?.cancel();
  return `credential-${createHash("sha256").update(apiKey).digest("hex").slice(0, 24)}`;
}

/** `$XDG_CONFIG_HOME/vendor-api`, else `~/.config/vendor-api`. */
export function configDir(env = process.env) {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "vendor-api");
}

/**
 * The signing secret of `account` at the API of `apiUrl` on this machine, made on first use and
 * kept in `<configDir>/listen-secrets.json` (directory 0700, file 0600: only this user reads it).
 */
export function accountSecret(apiUrl, account, env = process.env) {
  const dir = configDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, "listen-secrets.json");
  let secrets = {};
  try {
    secrets = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    if (err?.code !== "ENOENT") throw new ListenError(`cannot read ${file}: ${err?.message ?? err}`);
  }
  const name = `${new URL(apiUrl).origin} ${account}`;
  const known = secrets[name];
  if (typeof known === "string" && known.startsWith("whsec_")) {
    fs.chmodSync(file, 0o600);
    return known;
  }
  secrets[name] = generateSecret();
  // Written whole under another name, then renamed: a second run at the same moment reads either
  // the old file or the new one, never half of one.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  return secrets[name];
}

function streamUrl(args) {
  const url = new URL("/api/vendor/events/stream", args.apiUrl);
  if (args.events && args.events.length > 0) url.searchParams.set("types", args.events.join(","));
  return url.toString();
}

/**
 * Listens until `io.signal` aborts, forwarding each event signed with `args.secret`. Throws
 * ListenError when the server refuses for good (400, 401, 403, 404); anything else (a refused
 * connection, a 5xx, a 429, a stream that ends) is retried with backoff and Last-Event-ID.
 */
export async function listen(args, io) {
  const now = io.now ?? (() => new Date());
  const userAgent = `vendor-api-webhooks/1.0 (+${new URL(args.apiUrl).origin}; ${args.tool ?? "vendor-api listen"})`;
  let lastEventId;
  let backoff = BACKOFF_FIRST_MS;
  const wait = (ms) =>
    new Promise((resolve) => {
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

  const forward = async (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      io.err(`skipped a message that is not JSON (id ${message.id})`);
      return;
    }
    const request = buildDelivery({
      deliveryId: newDeliveryId(),
      eventId: event.id,
      eventType: event.event,
      data: event.data,
      secret: args.secret,
      sentAt: now(),
    });
    const result = await postDelivery(args.forwardTo, request, { userAgent });
    const answer = result.statusCode === undefined ? `error: ${result.error}` : String(result.statusCode);
    io.out(
      `${now().toISOString()}  ${event.event} ${event.id}  -> POST ${args.forwardTo} [${answer}] ${result.durationMs} ms`,
    );
  };

  while (!io.signal.aborted) {
    const abort = new AbortController();
    const stop = () => abort.abort();
    io.signal.addEventListener("abort", stop);
    let idle;
    // Forwarded strictly one after another: the parser queues, the chain sends. A reconnect waits
    // for it, so Last-Event-ID names the last event really forwarded.
    let chain = Promise.resolve();
    const alive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(new Error("no heartbeat")), IDLE_LIMIT_MS);
    };
    try {
      const headers = { accept: "text/event-stream", ...credentialHeaders(args.apiKey) };
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
      for await (const chunk of res.body) {
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
}
