// The baseline: what the two benchmarked endpoints cost with no framework. node:http + pg, the
// app's own SQL text (bench/app-sql.ts), the same API-key lookup by SHA-256 hash, the same JSON
// (PostgreSQL renders it, Node passes it through), the same statements in one transaction for a
// POST. It skips what a framework adds: routing, schema validation, logging, error vocabulary.
// Env: PORT, DATABASE_URL, POOL_SIZE (default 10, the app's pool size).
import http from "node:http";
import { createId } from "@paralleldrive/cuid2";
import pg from "pg";
import { hashSecret } from "../src/lib/crypto.ts";
import { encodeCursor } from "../src/lib/cursor.ts";
import { newTrackingToken } from "../src/modules/orders/orders.service.ts";
import * as q from "./app-sql.ts";

const LIMIT = 100;
const LAST_USED_RESOLUTION_MS = 60_000;

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE || 10),
  connectionTimeoutMillis: 5_000,
});
pool.on("error", () => {});

interface KeyRow {
  id: string;
  vendor_id: string;
  scopes: string[] | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

async function authenticate(req: http.IncomingMessage, scope: string): Promise<string | undefined> {
  const key = req.headers["x-api-key"];
  if (typeof key !== "string" || !key.startsWith("vk_") || key.length > 200) return undefined;
  const hash = hashSecret(key);
  const { rows } = await pool.query<KeyRow>(q.apiKeyByHash.text, q.apiKeyByHash.bind({ hash }));
  const row = rows[0];
  if (!row || row.revoked_at) return undefined;
  if (row.scopes && !row.scopes.includes(scope)) return undefined;
  const now = new Date();
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    pool.query(q.touchApiKey.text, q.touchApiKey.bind({ at: now, id: row.id })).catch(() => {});
  }
  return row.vendor_id;
}

async function listOrders(vendorId: string): Promise<string> {
  const { rows } = await pool.query<{ json: string; id: string; updatedAt: string }>(
    q.listOrders.text,
    q.listOrders.bind({ vendorId }),
  );
  const page = rows.slice(0, LIMIT);
  const last = page.at(-1);
  const nextCursor = rows.length > LIMIT && last ? encodeCursor({ t: last.updatedAt, id: last.id }) : null;
  return `{"orders":[${page.map((r) => r.json).join(",")}],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

interface OrderBody {
  customerName: string;
  customerEmail: string;
  type: string;
  [field: string]: unknown;
}

async function createOrder(vendorId: string, body: OrderBody): Promise<string> {
  const now = new Date();
  const client = await pool.connect();
  try {
    await client.query("begin");
    const customers = await client.query<{ id: string }>(
      q.customerByEmail.text,
      q.customerByEmail.bind({ vendorId, email: body.customerEmail }),
    );
    // The bench always posts an existing customer's e-mail (the app's linking path).
    const customerId = customers.rows[0]?.id;
    if (!customerId) throw new Error("baseline expects an existing customer");
    const id = createId();
    const opt = (name: string) => (body[name] as string | undefined) ?? null;
    await client.query(
      q.insertOrder.text,
      q.insertOrder.bind({
        id,
        vendorId,
        customerId,
        type: body.type,
        model: opt("model"),
        size: opt("size"),
        color: opt("color"),
        description: opt("description"),
        specialRequests: opt("specialRequests"),
        customerPhone: opt("customerPhone"),
        weddingDate: opt("weddingDate"),
        trackingToken: newTrackingToken(),
        now,
      }),
    );
    await client.query(q.insertOrderUpdate.text, q.insertOrderUpdate.bind({ orderId: id, now }));
    const found = await client.query<{ json: string }>(q.findOrder.text, q.findOrder.bind({ vendorId, id }));
    const json = found.rows[0]?.json;
    if (!json) throw new Error("order vanished inside its own transaction");
    const eventId = createId();
    await client.query(q.insertEvent.text, q.insertEvent.bind({ id: eventId, vendorId, data: json, now }));
    await client.query(q.notify.text, q.notify.bind({ id: eventId }));
    await client.query("commit");
    return json;
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

function send(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.url === "/health") return send(res, 200, '{"status":"ok"}');
  if (req.url !== "/api/vendor/orders") return send(res, 404, '{"title":"Not Found"}');
  const write = req.method === "POST";
  const vendorId = await authenticate(req, write ? "orders:write" : "orders:read");
  if (!vendorId) return send(res, 401, '{"title":"Unauthorized"}');
  if (!write) return send(res, 200, await listOrders(vendorId));
  let body: OrderBody;
  try {
    body = JSON.parse(await readBody(req)) as OrderBody;
  } catch {
    return send(res, 400, '{"title":"Bad Request"}');
  }
  if (typeof body?.customerName !== "string" || typeof body.type !== "string") {
    return send(res, 400, '{"title":"Bad Request"}');
  }
  return send(res, 201, await createOrder(vendorId, body));
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, '{"title":"Internal Server Error"}');
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1");

process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
