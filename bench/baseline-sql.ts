// The baseline's four statements: each request is ONE statement (a CTE) that checks the API key
// by its SHA-256 hash, does all the work the app does for that endpoint, and has PostgreSQL build
// the answer's JSON. Written by hand for this benchmark; only the order list's JSON fragment is
// the app's own (src/modules/orders/order-json.repository.ts), so the GET bodies are byte-identical.
// Run as named prepared statements (parsed and planned once per connection).
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { missesRuleSql, overdueSql, shopRulesSql } from "../src/modules/orders/order-alerts.repository.ts";
import { leadDaysSql, orderJsonSql } from "../src/modules/orders/order-json.repository.ts";
import { EVENTS_CHANNEL } from "../src/outbox/event-types.ts";

const iso = (x: string) => `to_char(${x} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const str = (x: string) => `to_json(${x}::text)::text`;
const nullable = (x: string) => `coalesce(to_json(${x})::text, 'null')`;

/** A compact JSON object (keys in the order given) as text concatenation of already-JSON values. */
const object = (fields: Array<[string, string]>) =>
  `(${fields.map(([k, v], i) => `'${i === 0 ? "{" : ","}"${k}":' || ${v}`).join(" || ")} || '}')`;

/** The API key, only when unrevoked and allowed `scope` (null scopes = every scope). */
const key = (scope: string) => `k as (
    select id, vendor_id, name from api_keys
    where key_hash = $1::text and revoked_at is null and (scopes is null or scopes ? '${scope}')
  ), touch as (
    update api_keys a set last_used_at = now() from k
    where a.id = k.id and (a.last_used_at is null or a.last_used_at < now() - interval '1 minute')
  )`;

/** Fan-out of the events in CTE `ev` to subscribed ACTIVE endpoints (what enqueueEvent does). */
const deliveries = `d as (
    insert into webhook_deliveries
      (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
    select 'd' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), w.id, ev.vendor_id, ev.id,
           ev.type, 'PENDING', ev.created_at, ev.created_at, ev.created_at
    from ev join webhooks w on w.vendor_id = ev.vendor_id
    where w.status = 'ACTIVE' and w.events @> jsonb_build_array(ev.type)
    returning 1
  )`;
/**
 * The activity-log entry of a change made with the key (what activityCte writes): one per row of
 * `from`, the key's name read with the key itself.
 */
const activity = (p: {
  id: string;
  action: string;
  from: string;
  vendorId: string;
  at: string;
  subjectId: string;
  detail?: string;
}) => `act as (
    insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
    select ${p.id}::text, ${p.vendorId}, ${p.at}, 'api_key', k.id, k.name, '${p.action}', ${p.subjectId}, ${p.detail ?? "null::jsonb"}
    from ${p.from} cross join k
  )`;
const notify = (eventIdParam: string) =>
  `(select pg_notify('${EVENTS_CHANNEL}', ${eventIdParam}::text) from (select 1 from d limit 1) q) is not null as notified`;

const customerJson = (t: string, measurements: string, preferences: string) =>
  object([
    ["id", str(`${t}.id`)],
    ["name", str(`${t}.name`)],
    ["email", nullable(`${t}.email`)],
    ["phone", nullable(`${t}.phone`)],
    ["weddingDate", nullable(`${t}.wedding_date`)],
    ["language", nullable(`${t}.language`)],
    ["notes", nullable(`${t}.notes`)],
    ["measurements", measurements],
    ["preferences", preferences],
    // The integrator's own id and pairs (CONTRACT 12): none on the bench's customers.
    ["externalId", "'null'"],
    ["metadata", "'{}'"],
    ["createdAt", `'"' || ${iso(`${t}.created_at`)} || '"'`],
    ["updatedAt", `'"' || ${iso(`${t}.updated_at`)} || '"'`],
  ]);

/** A Drizzle fragment of the app's as SQL text, its (constant) parameters inlined as literals. */
function inline(fragment: SQL): string {
  const q = new PgDialect().sqlToQuery(sql`${fragment}`);
  return q.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const v = q.params[Number(n) - 1];
    if (typeof v !== "string") throw new Error("unexpected parameter in an inlined fragment");
    return `'${v.replaceAll("'", "''")}'`;
  });
}

const leadDays = inline(leadDaysSql);

/**
 * The alerts a new order with a due date is evaluated for at once (what the app's create does in
 * order-alerts.service.ts evaluateOrderAlerts): an order_alerts row per risk rule it already
 * misses, and if it is an overdue rental. The bench's orders are due months ahead and miss none,
 * so neither server announces one (the same-work check compares the events).
 */
const newOrderAlerts = `al as (
    insert into order_alerts (order_id, vendor_id, kind, created_at)
    select x.order_id, x.vendor_id, x.kind, now() from (
      select o.id as order_id, o.vendor_id, 'at_risk:' || (r ->> 'status') || ':' || (r ->> 'daysBefore') as kind
      from o join vendors v on v.id = o.vendor_id cross join c
      cross join lateral jsonb_array_elements(${inline(shopRulesSql)}) r
      where ${inline(missesRuleSql({ status: sql`o.status`, wedding: sql`coalesce(c.wedding_date, o.wedding_date)`, today: sql`(now() at time zone v.time_zone)::date` }, sql`r`))}
      union all
      select o.id, o.vendor_id, 'overdue' from o join vendors v on v.id = o.vendor_id
      where ${inline(overdueSql({ type: sql`o.type`, status: sql`o.status`, dueBack: sql`o.due_back_date`, today: sql`(now() at time zone v.time_zone)::date` }))}
    ) x
    on conflict do nothing
  )`;

/**
 * POST /api/vendor/orders: link the vendor's customer with the e-mail or create one (with
 * customer.created), the order, its first history entry, order.created, deliveries, NOTIFY.
 * $1 key hash, $2 name, $3 email, $4 phone, $5 wedding date, $6 new customer id, $7 order id,
 * $8 type, $9 model, $10 size, $11 color, $12 description, $13 special requests, $14 tracking
 * token, $15 customer.created event id, $16 order.created event id, $17 activity entry id, $18 the
 * phone in E.164 (matched when the e-mail is not, and stored on a new customer). The order takes
 * the shop's next number from the vendor row (as the app does: CONTRACT 12).
 */
export const createOrder = `with ${key("orders:write")},
  found as (
    (select c.id, c.name, c.email, c.wedding_date from customers c join k on c.vendor_id = k.vendor_id
     where $3::text is not null and lower(c.email) = lower($3::text) limit 1)
    union all
    (select c.id, c.name, c.email, c.wedding_date from customers c join k on c.vendor_id = k.vendor_id
     where $18::text is not null and c.phone_e164 = $18::text and (c.email is null or $3::text is null)
     order by c.created_at, c.id limit 1)
    limit 1
  ), nc as (
    insert into customers (id, vendor_id, name, email, phone, phone_e164, wedding_date, created_at, updated_at)
    select $6::text, k.vendor_id, $2::text, $3::text, $4::text, $18::text, $5::date, now(), now() from k
    where not exists (select 1 from found)
    on conflict do nothing
    returning id, vendor_id, name, email, phone, language, wedding_date, notes, created_at, updated_at
  ), c as (
    select id, name, email, wedding_date from nc union all select id, name, email, wedding_date from found
  ), num as (
    update vendors v set last_order_number = last_order_number + 1 from k
    where v.id = k.vendor_id and exists (select 1 from c)
    returning v.last_order_number as number
  ), o as (
    insert into orders (id, vendor_id, customer_id, number, type, status, model, size, color, description,
                        special_requests, customer_phone, wedding_date, tracking_token, created_at, updated_at)
    select $7::text, k.vendor_id, c.id, num.number, $8::text, 'ORDERED', $9::text, $10::text, $11::text, $12::text,
           $13::text, $4::text, $5::date, $14::text, now(), now()
    from k cross join c cross join num
    returning *
  ), h as (
    insert into order_updates (order_id, status, message, created_at)
    select id, 'ORDERED', 'Order created', created_at from o
    returning seq, status, message, image_url, created_at
  ), oj as (
    select o.vendor_id, ${object([
      ["id", str("o.id")],
      ["number", "o.number::text"],
      ["type", str("o.type")],
      ["status", str("o.status")],
      ["model", nullable("o.model")],
      ["size", nullable("o.size")],
      ["color", nullable("o.color")],
      ["description", nullable("o.description")],
      ["specialRequests", nullable("o.special_requests")],
      // The due date as the app derives it (order-json.repository.ts dueDateSql): the wedding
      // date less the shop's lead time for the type.
      ["dueDate", nullable(`coalesce(o.due_date, coalesce(c.wedding_date, o.wedding_date) - ${leadDays})`)],
      ["pickupDate", nullable("o.pickup_date")],
      ["dueBackDate", nullable("o.due_back_date")],
      ["customerId", nullable("o.customer_id")],
      [
        "customer",
        object([
          ["name", str("c.name")],
          ["email", nullable("c.email")],
        ]),
      ],
      ["externalId", "'null'"],
      ["metadata", "'{}'"],
      [
        "updates",
        `'[' || ${object([
          ["status", str("h.status")],
          ["message", nullable("h.message")],
          ["imageUrl", nullable("h.image_url")],
          // The entry's photos: one probe of the index, none on a new order.
          [
            "photos",
            "coalesce((select json_agg(p.id)::text from order_photos p where p.update_seq = h.seq), '[]')",
          ],
          ["createdAt", `'"' || ${iso("h.created_at")} || '"'`],
        ])} || ']'`,
      ],
      ["createdAt", `'"' || ${iso("o.created_at")} || '"'`],
      ["updatedAt", `'"' || ${iso("o.updated_at")} || '"'`],
    ])} as json
    from o cross join c cross join h
  ), ev as (
    insert into events (id, vendor_id, type, data, created_at, dispatched_at)
    select $15::text, nc.vendor_id, 'customer.created', (${customerJson("nc", "'null'", "'null'")})::jsonb,
           nc.created_at, nc.created_at from nc
    union all
    select $16::text, oj.vendor_id, 'order.created', oj.json::jsonb, now(), now() from oj
    returning id, vendor_id, type, created_at
  ), ${deliveries}, ${activity({
    id: "$17",
    action: "order.created",
    from: "o",
    vendorId: "o.vendor_id",
    at: "o.created_at",
    subjectId: "o.id",
    detail: "jsonb_build_object('number', o.number)",
  })}, ${newOrderAlerts}
  select (select json from oj) as json, exists (select 1 from k) as authed, ${notify("$16")}`;

/**
 * PUT /api/vendor/orders/{id}/status: a valid move only (the "from" statuses that may move to the
 * target come from the app's transition table; RETURNED only for RENTAL), a history entry, and
 * order.status_changed unless the status stays the same. updated_at never moves backwards.
 * $1 key hash, $2 order id, $3 target status, $4 statuses that may move to it, $5 message,
 * $6 image URL, $7 event id, $8 activity entry id.
 */
export const updateStatus = `with ${key("orders:write")},
  cur as (
    select o.id, o.status, o.type from orders o join k on o.vendor_id = k.vendor_id
    where o.id = $2::text for update of o
  ), u as (
    update orders o
    set status = $3::text,
        updated_at = greatest(date_trunc('milliseconds', now()), o.updated_at + interval '1 millisecond')
    from cur
    where o.id = cur.id
      and (cur.status = $3::text or (cur.status = any($4::text[]) and ($3::text <> 'RETURNED' or cur.type = 'RENTAL')))
    returning o.id, o.vendor_id, o.customer_id, o.updated_at, cur.status as prev, o.number, o.external_id, o.metadata
  ), h as (
    insert into order_updates (order_id, status, message, image_url, created_at)
    select id, $3::text, $5::text, $6::text, updated_at from u
  ), ev as (
    insert into events (id, vendor_id, type, data, created_at, dispatched_at)
    select $7::text, u.vendor_id, 'order.status_changed',
           jsonb_build_object('id', u.id, 'number', u.number, 'status', $3::text, 'previousStatus', u.prev,
             'customerId', u.customer_id, 'externalId', u.external_id, 'metadata', coalesce(u.metadata, '{}'::jsonb),
             'updatedAt', ${iso("u.updated_at")}, 'message', $5::text,
             'imageUrl', $6::text, 'photos', '[]'::jsonb),
           u.updated_at, u.updated_at
    from u where u.prev <> $3::text
    returning id, vendor_id, type, created_at
  ), ${deliveries}, ${activity({
    id: "$8",
    action: "order.status_changed",
    from: "u",
    vendorId: "u.vendor_id",
    at: "u.updated_at",
    subjectId: "u.id",
    detail: "jsonb_build_object('number', u.number, 'from', u.prev, 'to', $3::text)",
  })}
  select exists (select 1 from k) as authed, (select status from cur) as current,
         exists (select 1 from u) as moved, ${notify("$7")}`;

/**
 * POST /api/vendor/customers: the customer unless the e-mail is taken (any case), customer.created,
 * deliveries, NOTIFY. $1 key hash, $2 id, $3 name, $4 email, $5 phone, $6 wedding date, $7 notes,
 * $8 measurements (JSON text), $9 preferences (JSON text), $10 event id, $11 activity entry id.
 * The JSON objects are passed as compact text, so the answer carries them as the client's parser
 * wrote them.
 */
export const createCustomer = `with ${key("customers:write")},
  c as (
    insert into customers (id, vendor_id, name, email, phone, wedding_date, notes, measurements,
                           preferences, created_at, updated_at)
    select $2::text, k.vendor_id, $3::text, $4::text, $5::text, $6::date, $7::text, $8::jsonb, $9::jsonb,
           now(), now() from k
    on conflict do nothing
    returning id, vendor_id, name, email, phone, language, wedding_date, notes, created_at, updated_at
  ), cj as (
    select vendor_id, created_at, ${customerJson("c", "coalesce($8::text, 'null')", "coalesce($9::text, 'null')")} as json from c
  ), ev as (
    insert into events (id, vendor_id, type, data, created_at, dispatched_at)
    select $10::text, vendor_id, 'customer.created', json::jsonb, created_at, created_at from cj
    returning id, vendor_id, type, created_at
  ), ${deliveries}, ${activity({
    id: "$11",
    action: "customer.created",
    from: "c",
    vendorId: "c.vendor_id",
    at: "c.created_at",
    subjectId: "c.id",
  })}
  select (select json from cj) as json, exists (select 1 from k) as authed, ${notify("$10")}`;

/** The id of the vendor's customer with this e-mail (the 409's existingId; not on the hot path). */
export const customerByEmail = `select c.id from customers c join api_keys k on k.vendor_id = c.vendor_id
  where k.key_hash = $1::text and lower(c.email) = lower($2::text) limit 1`;

/** The app's order JSON fragment with its constant parameters (the keys) inlined as literals. */
const orderJson = inline(orderJsonSql);

/**
 * GET /api/vendor/orders: the first 100 orders by update, newest first (the index's order), with
 * their customer and history, as one JSON text; n > 100 means another page follows (the cursor
 * is made from the 100th row's t and id, as the app does). `version` is the page's weak ETag, as
 * the app makes it (orders.repository.ts pageVersionSql): a hash of each row's id and its order's
 * and customer's version stamps, the row beyond the page included.
 */
export const listOrders = `with ${key("orders:read")},
  p as (
    select ${orderJson} as json, o.id, o.updated_at, c.updated_at as customer_updated_at
    from orders o left join customers c on c.id = o.customer_id
    -- The vendor as a value, not a join: the page is read from orders_vendor_updated_idx in order
    -- whatever the planner guesses of a vendor's size (a join let it scan every order).
    where o.vendor_id = (select vendor_id from k)
    order by o.updated_at desc nulls last, o.id desc nulls last
    limit 101
  ), r as (
    select json, id, updated_at, customer_updated_at,
           row_number() over (order by updated_at desc, id desc) as rn
    from p
  )
  select exists (select 1 from k) as authed,
         (select coalesce(string_agg(json, ',' order by rn), '') from r where rn <= 100) as body,
         (select count(*) from r)::int as n,
         (select ${iso("updated_at")} from r where rn = 100) as t,
         (select id from r where rn = 100) as last_id,
         (select md5(coalesce(string_agg(id || '|' || updated_at::text || '|' || coalesce(customer_updated_at::text, ''),
                                         ',' order by rn), '')) from r) as version`;
