// Today: the shop's working day in ONE statement, whatever the number of orders,
// appointments or inquiries: each section is a bounded subquery over the shop's rows, and
// PostgreSQL builds the whole answer as one JSON text (test/query-count/today.test.ts counts it).
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { isoTimestamp } from "../../db/sql.ts";
import { missesRuleSql, overdueSql, shopRulesSql, shopTodaySql } from "../orders/order-alerts.repository.ts";
import { progressOrder, rentalClosedStatuses } from "../orders/order-dates.ts";

/** Lines per section at most; the section says how many more there are. */
export const TODAY_SECTION_LIMIT = 20;

const textArray = (values: readonly string[]) => sql.raw(`array[${values.map((v) => `'${v}'`).join(",")}]`);
const closed = textArray(rentalClosedStatuses);
const beforePickup = textArray(progressOrder.slice(0, progressOrder.indexOf("READY_FOR_PICKUP") + 1));

/** A section: its first TODAY_SECTION_LIMIT lines (built by `line` over `x`, in `order`) and its count. */
function section(rows: SQL, line: SQL, order: SQL) {
  return sql`(select json_build_object(
      'items', coalesce((select json_agg(${line} order by ${order}) from (select * from (${rows}) x order by ${order} limit ${TODAY_SECTION_LIMIT}) x), '[]'::json),
      'count', (select count(*) from (${rows}) r)))`;
}

const orderLine = (extra: SQL) =>
  sql`json_build_object('id', x.id, 'number', x.number, 'type', x.type, 'status', x.status, 'model', x.model,
        'customerName', x.customer_name${extra})`;

/**
 * The shop's day at `now`, as JSON text (TodayRow in today.service.ts). `member` names the
 * signed-in member (whose language the page speaks); `owner` adds the integrations section.
 */
export async function findToday(
  db: Executor,
  input: { vendorId: string; memberId: string; now: Date; owner: boolean },
): Promise<string> {
  const now = input.now.toISOString();
  const ordersOfShop = sql`select o.id, o.number, o.type, o.status, o.model, o.customer_id, o.pickup_date, o.due_back_date,
        c.name as customer_name, coalesce(c.wedding_date, o.wedding_date) as wedding, v.today, v.rules
      from orders o join v on v.id = o.vendor_id left join customers c on c.id = o.customer_id
      where o.vendor_id = ${input.vendorId} and o.status not in ('COMPLETED', 'CANCELLED')`;
  const appointments = sql`select a.id, a.type, a.status, a.date, a.duration, a.customer_id, c.name as customer_name,
        a.date < ${now}::timestamptz as past
      from appointments a join v on v.id = a.vendor_id join customers c on c.id = a.customer_id
      where a.vendor_id = ${input.vendorId} and a.status in ('PROPOSED', 'CONFIRMED')
        and a.date >= (v.today::timestamp at time zone v.time_zone)
        and a.date < ((v.today + 1)::timestamp at time zone v.time_zone)`;
  const fittings = sql`select s.* from (${ordersOfShop}) s
      where s.status = 'FITTING_READY' and not exists (
        select 1 from appointments a where a.vendor_id = ${input.vendorId} and a.customer_id = s.customer_id
          and a.type = 'FITTING' and a.status in ('PROPOSED', 'CONFIRMED') and a.date >= ${now}::timestamptz)`;
  const pickups = sql`select s.* from (${ordersOfShop}) s
      where s.status = any(${beforePickup})
        and ((s.status = 'READY_FOR_PICKUP' and s.pickup_date is null) or s.pickup_date <= s.today)`;
  const dueBack = sql`select s.* from (${ordersOfShop}) s
      where s.type = 'RENTAL' and s.due_back_date between s.today and s.today + 1 and not (s.status = any(${closed}))`;
  const overdue = sql`select s.* from (${ordersOfShop}) s
      where ${overdueSql({ type: sql`s.type`, status: sql`s.status`, dueBack: sql`s.due_back_date`, today: sql`s.today` })}`;
  // The most urgent rule each order misses (the fewest days before the wedding).
  const atRisk = sql`select distinct on (s.id) s.*, r ->> 'status' as rule_status, (r ->> 'daysBefore')::int as rule_days
      from (${ordersOfShop}) s cross join lateral jsonb_array_elements(s.rules) r
      where ${missesRuleSql({ status: sql`s.status`, wedding: sql`s.wedding`, today: sql`s.today` }, sql`r`)}
      order by s.id, (r ->> 'daysBefore')::int`;
  const inquiries = sql`select i.id, i.name, i.message, i.created_at from inquiries i
      where i.vendor_id = ${input.vendorId} and i.handled_at is null`;
  const webhooks = sql`select w.id, w.url, w.status, w.failing_since, w.created_at from webhooks w
      where w.vendor_id = ${input.vendorId} and ${input.owner}::boolean and (w.status = 'DISABLED' or w.failing_since is not null)`;
  const [row] = await queryRows<{ json: string }>(
    db,
    sql`with v as (
      select v.id, v.time_zone, v.language, ${shopTodaySql(now)} as today, ${shopRulesSql} as rules
      from vendors v where v.id = ${input.vendorId}
    )
    select json_build_object(
      'today', v.today::text,
      'timeZone', v.time_zone,
      'language', coalesce((select m.language from members m where m.id = ${input.memberId} and m.vendor_id = v.id), v.language),
      'appointments', ${section(
        appointments,
        sql`json_build_object('id', x.id, 'type', x.type, 'status', x.status, 'date', ${isoTimestamp(sql`x.date`)},
              'duration', x.duration, 'customerId', x.customer_id, 'customerName', x.customer_name, 'past', x.past)`,
        sql`x.past, x.date, x.id`,
      )},
      'fittings', ${section(fittings, orderLine(sql`, 'customerId', x.customer_id`), sql`x.number`)},
      'pickups', ${section(pickups, orderLine(sql`, 'pickupDate', x.pickup_date`), sql`x.pickup_date nulls last, x.number`)},
      'dueBack', ${section(dueBack, orderLine(sql`, 'dueBackDate', x.due_back_date`), sql`x.due_back_date, x.number`)},
      'overdue', ${section(
        overdue,
        orderLine(sql`, 'dueBackDate', x.due_back_date, 'daysOverdue', x.today - x.due_back_date`),
        sql`x.due_back_date, x.number`,
      )},
      'atRisk', ${section(
        atRisk,
        orderLine(
          sql`, 'weddingDate', x.wedding, 'rule', json_build_object('status', x.rule_status, 'daysBefore', x.rule_days)`,
        ),
        sql`x.wedding, x.number`,
      )},
      'inquiries', ${section(
        inquiries,
        sql`json_build_object('id', x.id, 'name', x.name, 'message', left(x.message, 120), 'createdAt', ${isoTimestamp(sql`x.created_at`)})`,
        sql`x.created_at desc, x.id`,
      )},
      'integrations', ${section(
        webhooks,
        sql`json_build_object('id', x.id, 'url', x.url, 'status', x.status, 'failingSince', ${isoTimestamp(sql`x.failing_since`)})`,
        sql`x.created_at, x.id`,
      )}
    )::text as json from v`,
  );
  if (!row) throw new Error("today: the shop is gone");
  return row.json;
}
