// The baseline: the fastest honest way to do what the four benchmarked endpoints do, with no
// framework. node:http + pg, ONE statement per request (bench/baseline-sql.ts: the API-key check
// by SHA-256 hash, every insert, the outbox events with their payloads, the deliveries fan-out and
// a NOTIFY only when a delivery was queued, and PostgreSQL building the JSON), run as named
// prepared statements. It skips what a framework adds: routing tables, schema validation (a few
// hand checks stand in), logging, hooks, error vocabulary, rate limits.
// Env: PORT, DATABASE_URL, POOL_SIZE (default 10, the app's pool size).
import { createHash } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { encodeCursor } from "../src/lib/cursor.ts";
import { newId } from "../src/lib/ids.ts";
import { normalizePhone } from "../src/lib/phone.ts";
import { secureRandomBytes } from "../src/lib/random.ts";
import { orderStatuses, orderTransitions } from "../src/modules/orders/orders.workflow.ts";
import * as q from "./baseline-sql.ts";

const LIMIT = 100;

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE || 10),
  connectionTimeoutMillis: 5_000,
});
pool.on("error", () => {});

const run = <T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) =>
  pool.query<T>({ name, text, values });

const hashOf = (key: string) => createHash("sha256").update(key, "utf8").digest("hex");

/** The API key's hash, or undefined when it cannot be a key (no lookup then, as the app does). */
function keyHash(req: http.IncomingMessage): string | undefined {
  const key = req.headers["x-api-key"];
  if (typeof key !== "string" || !key.startsWith("vk_") || key.length > 200) return undefined;
  return hashOf(key.trim());
}

// Ids and the tracking token from the app's own generators (src/lib/ids.ts, random.ts): CUID2-shaped
// ids straight from the CSPRNG, its bytes drawn 4 KiB at a time. Until 2026-11-28 the baseline drew
// each id with a randomBytes call of its own, five getrandom calls per create: ~1 s of the
// baseline's ~19 s of busy CPU in a profile of two 8 s create rounds, a handicap the app did not carry.

/** Statuses that may move to each target (the app's transition table, inverted once). */
const movesTo = new Map<string, string[]>(
  orderStatuses.map((to) => [to, orderStatuses.filter((from) => orderTransitions[from].includes(to))]),
);

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
  ) {
    super(title);
  }
}
const unauthorized = () => new HttpError(401, "Unauthorized");
const badRequest = () => new HttpError(400, "Bad Request");

const optText = (body: Record<string, unknown>, name: string, max = 5000): string | null => {
  const v = body[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length > max) throw badRequest();
  return v;
};
const optObject = (body: Record<string, unknown>, name: string): string | null => {
  const v = body[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== "object" || Array.isArray(v)) throw badRequest();
  return JSON.stringify(v);
};

/** The first page's JSON and its weak ETag (the app's: `W/"o1-<page size>-<version>"`). */
async function listOrders(hash: string): Promise<{ json: string; etag: string }> {
  const { rows } = await run<{
    authed: boolean;
    body: string;
    n: number;
    t: string;
    last_id: string;
    version: string;
  }>("list_orders", q.listOrders, [hash]);
  const row = rows[0];
  if (!row?.authed) throw unauthorized();
  const next = row.n > LIMIT ? encodeCursor({ t: row.t, id: row.last_id }) : null;
  return {
    json: `{"orders":[${row.body}],"nextCursor":${JSON.stringify(next)}}`,
    etag: `W/"o2-${LIMIT}-${row.version}"`,
  };
}

async function createOrder(hash: string, body: Record<string, unknown>): Promise<string> {
  const name = body.customerName;
  if (typeof name !== "string" || !name.trim() || typeof body.type !== "string") throw badRequest();
  const email = optText(body, "customerEmail", 254);
  const values = [
    hash,
    name.trim(),
    email,
    optText(body, "customerPhone", 50),
    optText(body, "weddingDate", 10),
    newId(),
    newId(),
    body.type,
    optText(body, "model", 200),
    optText(body, "size", 50),
    optText(body, "color", 100),
    optText(body, "description"),
    optText(body, "specialRequests"),
    secureRandomBytes(32).toString("base64url"),
    newId(),
    newId(),
    newId(),
    // The bench's numbers carry their country code, so no shop country is needed (the app reads
    // the shop's time zone, cached, only for a number without one: vendors/shop-phone-country.ts).
    normalizePhone(optText(body, "customerPhone", 50)),
  ];
  // Twice at most: a concurrent insert of the same e-mail between our look-up and our insert
  // leaves no customer to link to in this statement's snapshot; the retry links to it.
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await run<{ json: string | null; authed: boolean }>(
      "create_order",
      q.createOrder,
      values,
    );
    const row = rows[0];
    if (!row?.authed) throw unauthorized();
    if (row.json) return row.json;
  }
  throw new Error("no customer to link the order to");
}

async function updateStatus(hash: string, id: string, body: Record<string, unknown>): Promise<string> {
  const status = body.status;
  const from = typeof status === "string" ? movesTo.get(status) : undefined;
  if (!from) throw badRequest();
  const message = optText(body, "message", 2000);
  const imageUrl = optText(body, "imageUrl", 2048);
  const { rows } = await run<{ authed: boolean; current: string | null; moved: boolean }>(
    "update_status",
    q.updateStatus,
    [hash, id, status, from, message, imageUrl, newId(), newId()],
  );
  const row = rows[0];
  if (!row?.authed) throw unauthorized();
  if (!row.current) throw new HttpError(404, "Not Found");
  if (!row.moved) throw new HttpError(409, "Conflict");
  return JSON.stringify({ id, status });
}

async function createCustomer(hash: string, body: Record<string, unknown>): Promise<string> {
  const name = body.name;
  if (typeof name !== "string" || !name.trim()) throw badRequest();
  const email = optText(body, "email", 254);
  const values = [
    hash,
    newId(),
    name.trim(),
    email,
    optText(body, "phone", 50),
    optText(body, "weddingDate", 10),
    optText(body, "notes"),
    optObject(body, "measurements"),
    optObject(body, "preferences"),
    newId(),
    newId(),
  ];
  const { rows } = await run<{ json: string | null; authed: boolean }>(
    "create_customer",
    q.createCustomer,
    values,
  );
  const row = rows[0];
  if (!row?.authed) throw unauthorized();
  if (row.json) return row.json;
  const existing = await run<{ id: string }>("customer_by_email", q.customerByEmail, [hash, email]);
  throw new HttpError(409, `Conflict ${existing.rows[0]?.id ?? ""}`);
}

function send(
  res: http.ServerResponse,
  status: number,
  body: string,
  headers: { location?: string; etag?: string } = {},
): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const v: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        if (typeof v !== "object" || v === null || Array.isArray(v)) reject(badRequest());
        else resolve(v as Record<string, unknown>);
      } catch {
        reject(badRequest());
      }
    });
    req.on("error", reject);
  });
}

const STATUS_PATH = /^\/api\/vendor\/orders\/([a-z0-9]{1,32})\/status$/;

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  if (url === "/health") return send(res, 200, '{"status":"ok"}');
  const hash = keyHash(req);
  if (url === "/api/vendor/orders") {
    if (!hash) throw unauthorized();
    if (req.method === "GET") {
      const page = await listOrders(hash);
      return send(res, 200, page.json, { etag: page.etag });
    }
    if (req.method === "POST") {
      const json = await createOrder(hash, await readJson(req));
      return send(res, 201, json, {
        location: `/api/vendor/orders/${(JSON.parse(json) as { id: string }).id}`,
      });
    }
  }
  if (url === "/api/vendor/customers" && req.method === "POST") {
    if (!hash) throw unauthorized();
    const json = await createCustomer(hash, await readJson(req));
    return send(res, 201, json, {
      location: `/api/vendor/customers/${(JSON.parse(json) as { id: string }).id}`,
    });
  }
  const status = STATUS_PATH.exec(url);
  if (status?.[1] && req.method === "PUT") {
    if (!hash) throw unauthorized();
    return send(res, 200, await updateStatus(hash, status[1], await readJson(req)));
  }
  throw new HttpError(404, "Not Found");
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    if (res.headersSent) return;
    if (err instanceof HttpError) return send(res, err.status, JSON.stringify({ title: err.title }));
    console.error(err);
    send(res, 500, '{"title":"Internal Server Error"}');
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1");

process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
