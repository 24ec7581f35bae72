// The customers a shop member picks from (the New order page's picker) and the likely duplicates
// (the merge page). Both are bounded reads of one shop's customers.
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { containsPattern } from "../../lib/search.ts";

export interface PickableCustomer {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
}

/**
 * Customers whose phone, name or e-mail holds the term; those found by phone first (the picker is
 * phone-first: a shop asks for the number), a phone matched on its digits (what was typed, or its
 * E.164 form), whatever spaces or dashes either was written with.
 */
export async function findPickableCustomers(
  db: Executor,
  vendorId: string,
  term: { text: string; digits: string | null; e164: string | null },
  limit: number,
): Promise<PickableCustomer[]> {
  const p = containsPattern(term.text);
  const digits: SQL = term.digits
    ? sql`(c.phone_e164 = ${term.e164} or regexp_replace(coalesce(c.phone, ''), '[^0-9]', '', 'g') like ${containsPattern(term.digits)})`
    : sql`false`;
  return queryRows<PickableCustomer>(
    db,
    sql`select c.id, c.name, c.email, c.phone from customers c
        where c.vendor_id = ${vendorId} and (${digits} or c.name ilike ${p} or c.email ilike ${p})
        order by ${digits} desc, lower(c.name), c.id
        limit ${limit}`,
  );
}

/** One customer of the shop for the picker (a preselected one), if it is the shop's. */
export async function findPickableCustomer(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<PickableCustomer | undefined> {
  const [row] = await queryRows<PickableCustomer>(
    db,
    sql`select id, name, email, phone from customers where vendor_id = ${vendorId} and id = ${id}`,
  );
  return row;
}

export interface DuplicatePair {
  reason: "email" | "phone" | "name";
  a: PickableCustomer;
  b: PickableCustomer;
}

/**
 * Pairs of the shop's customers that look like one person: the same e-mail (any case), the same
 * phone in E.164, or the same name (any case, spaces trimmed). The older of a pair comes first.
 * At most `limit` pairs.
 */
export async function findDuplicatePairs(
  db: Executor,
  vendorId: string,
  limit: number,
): Promise<DuplicatePair[]> {
  const rows = await queryRows<{
    reason: DuplicatePair["reason"];
    a_id: string;
    a_name: string;
    a_email: string | null;
    a_phone: string | null;
    b_id: string;
    b_name: string;
    b_email: string | null;
    b_phone: string | null;
  }>(
    db,
    sql`with k as (
          select id, created_at, 'email' as reason, lower(email) as key from customers
          where vendor_id = ${vendorId} and email is not null
          union all
          select id, created_at, 'phone', phone_e164 from customers where vendor_id = ${vendorId} and phone_e164 is not null
          union all
          select id, created_at, 'name', lower(btrim(name)) from customers where vendor_id = ${vendorId}
        ), pairs as (
          select distinct on (x.id, y.id) x.reason, x.id as a, y.id as b, x.created_at
          from k x join k y on y.reason = x.reason and y.key = x.key
            and (y.created_at, y.id) > (x.created_at, x.id)
          order by x.id, y.id, case x.reason when 'email' then 1 when 'phone' then 2 else 3 end
        )
        select p.reason, a.id as a_id, a.name as a_name, a.email as a_email, a.phone as a_phone,
               b.id as b_id, b.name as b_name, b.email as b_email, b.phone as b_phone
        from pairs p join customers a on a.id = p.a join customers b on b.id = p.b
        order by p.created_at desc, a.id, b.id
        limit ${limit}`,
  );
  return rows.map((r) => ({
    reason: r.reason,
    a: { id: r.a_id, name: r.a_name, email: r.a_email, phone: r.a_phone },
    b: { id: r.b_id, name: r.b_name, email: r.b_email, phone: r.b_phone },
  }));
}
