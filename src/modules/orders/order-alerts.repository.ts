// The statements of the day sweep (order-alerts.service.ts): which orders crossed a wedding-date
// risk rule, passed their due-back date or are due back tomorrow, recorded once per order and
// kind in order_alerts. The insert's ON CONFLICT DO NOTHING is what makes each alert happen
// once: a second worker's insert of the same (order, kind) waits for the first one's transaction
// and then inserts nothing, so it enqueues no second event or mail.
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { defaultRiskRules, progressOrder, rentalClosedStatuses } from "./order-dates.ts";

const r = sql`r`;

export interface AlertScope {
  vendorId?: string | undefined;
  orderId?: string | undefined;
  customerId?: string | undefined;
}

export interface ClaimedAlert {
  orderId: string;
  vendorId: string;
  kind: string;
  customerId: string | null;
  number: number;
  type: string;
  model: string | null;
  dueBackDate: string | null;
  trackingToken: string;
  /** The customer's language (CONTRACT 12), else the shop's: the reminder mail's. */
  language: string;
}

const textArray = (values: readonly string[]) => sql.raw(`array[${values.map((v) => `'${v}'`).join(",")}]`);
const progress = textArray(progressOrder);
const closed = textArray(rentalClosedStatuses);
const defaultRules = sql.raw(`'${JSON.stringify(defaultRiskRules)}'::jsonb`);

/** The shop's rules (vendors.risk_rules, else the defaults) and its today, over `v`. */
export const shopRulesSql = sql`coalesce(v.risk_rules, ${defaultRules})`;

/**
 * Whether order `o` (with its `wedding` date and its shop's `today`) misses rule `r` (jsonb
 * `{ status, daysBefore }`): the wedding within daysBefore days (today or later), the order not yet
 * at the rule's status (order-dates.ts progressOrder; CANCELLED, with no place in it, never is).
 */
export function missesRuleSql(o: { status: SQL; wedding: SQL; today: SQL }, r: SQL): SQL {
  return sql`(${o.wedding} is not null and ${o.wedding} - ${o.today} between 0 and (${r} ->> 'daysBefore')::int
    and array_position(${progress}, ${o.status}) < array_position(${progress}, ${r} ->> 'status'))`;
}

/** A RENTAL not back (order-dates.ts rentalClosedStatuses) after its due-back date. */
export function overdueSql(o: { type: SQL; status: SQL; dueBack: SQL; today: SQL }): SQL {
  return sql`(${o.type} = 'RENTAL' and ${o.dueBack} < ${o.today} and not (${o.status} = any(${closed})))`;
}

/**
 * Whether an alert is due for order `o` (its shop aliased `v`): the predicates of
 * claimOrderAlerts below, read in the statement that creates the order, so that a create with
 * none due (nearly all) skips the transaction that would record and announce them.
 */
export function alertDueSql(o: { type: SQL; status: SQL; dueBack: SQL; wedding: SQL; today: SQL }): SQL {
  return sql`(exists (select 1 from jsonb_array_elements(${shopRulesSql}) r
      where ${missesRuleSql({ status: o.status, wedding: o.wedding, today: o.today }, r)})
    or ${overdueSql(o)}
    or (${o.type} = 'RENTAL' and ${o.dueBack} - ${o.today} between 0 and 1 and not (${o.status} = any(${closed}))))`;
}

/** The shop's today in its own zone, at `now`. */
export const shopTodaySql = (now: string) => sql`(${now}::timestamptz at time zone v.time_zone)::date`;

/**
 * Records the alerts due at `now` for the orders in `scope` (at most `limit`), and answers those
 * this call recorded (none an earlier or a concurrent call did) with what their event or mail needs.
 */
export async function claimOrderAlerts(
  db: Executor,
  scope: AlertScope,
  now: Date,
  limit: number,
): Promise<ClaimedAlert[]> {
  const at = now.toISOString();
  const where = [sql`o.status not in ('COMPLETED', 'CANCELLED')`];
  if (scope.vendorId !== undefined) where.push(sql`o.vendor_id = ${scope.vendorId}`);
  if (scope.orderId !== undefined) where.push(sql`o.id = ${scope.orderId}`);
  if (scope.customerId !== undefined) where.push(sql`o.customer_id = ${scope.customerId}`);
  const today = sql`o.today`;
  return queryRows<ClaimedAlert>(
    db,
    sql`with o as (
      select o.id, o.vendor_id, o.type, o.status, o.due_back_date, ${shopTodaySql(at)} as today,
             coalesce(c.wedding_date, o.wedding_date) as wedding, ${shopRulesSql} as rules
      from orders o join vendors v on v.id = o.vendor_id left join customers c on c.id = o.customer_id
      where ${sql.join(where, sql` and `)}
    ), cand as (
      select o.id as order_id, o.vendor_id, 'at_risk:' || (r ->> 'status') || ':' || (r ->> 'daysBefore') as kind
      from o cross join lateral jsonb_array_elements(o.rules) r
      where ${missesRuleSql({ status: sql`o.status`, wedding: sql`o.wedding`, today }, r)}
      union all
      select o.id, o.vendor_id, 'overdue' from o
      where ${overdueSql({ type: sql`o.type`, status: sql`o.status`, dueBack: sql`o.due_back_date`, today })}
      union all
      select o.id, o.vendor_id, 'due_back_reminder' from o
      where o.type = 'RENTAL' and o.due_back_date - o.today between 0 and 1 and not (o.status = any(${closed}))
    ), ins as (
      insert into order_alerts (order_id, vendor_id, kind, created_at)
      select order_id, vendor_id, kind, ${at}::timestamptz from (
        select cand.* from cand
        where not exists (select 1 from order_alerts a where a.order_id = cand.order_id and a.kind = cand.kind)
        limit ${limit}) x
      on conflict do nothing
      returning order_id, vendor_id, kind
    )
    select ins.order_id as "orderId", ins.vendor_id as "vendorId", ins.kind, o.customer_id as "customerId",
           o.number, o.type, o.model, o.due_back_date::text as "dueBackDate", o.tracking_token as "trackingToken",
           coalesce(c.language, v.language) as language
    from ins join orders o on o.id = ins.order_id join vendors v on v.id = o.vendor_id
    left join customers c on c.id = o.customer_id
    order by o.number, ins.kind`,
  );
}

/** The rules order `orderId` misses at `now`, and whether it is an overdue rental (the order page). */
export async function findOrderRisk(
  db: Executor,
  vendorId: string,
  orderId: string,
  now: Date,
): Promise<
  { rules: Array<{ status: string; daysBefore: number }>; overdue: boolean; language: string } | undefined
> {
  const at = now.toISOString();
  const [row] = await queryRows<{
    rules: Array<{ status: string; daysBefore: number }>;
    overdue: boolean;
    language: string;
  }>(
    db,
    sql`with o as (
      select o.id, o.type, o.status, o.due_back_date, ${shopTodaySql(at)} as today, v.language,
             coalesce(c.wedding_date, o.wedding_date) as wedding, ${shopRulesSql} as rules
      from orders o join vendors v on v.id = o.vendor_id left join customers c on c.id = o.customer_id
      where o.vendor_id = ${vendorId} and o.id = ${orderId}
    )
    select coalesce((select json_agg(r order by (r ->> 'daysBefore')::int) from jsonb_array_elements(o.rules) r
             where ${missesRuleSql({ status: sql`o.status`, wedding: sql`o.wedding`, today: sql`o.today` }, r)}), '[]'::json) as rules,
           ${overdueSql({ type: sql`o.type`, status: sql`o.status`, dueBack: sql`o.due_back_date`, today: sql`o.today` })} as overdue,
           o.language
    from o`,
  );
  return row;
}
