// The shop's order-date settings (CONTRACT 12, Dates of an order): vendors.lead_times and
// vendors.risk_rules, null meaning the defaults of order-dates.ts. Read and written only here.
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { vendors } from "../../db/schema/index.ts";

export interface OrderDateSettingsRow {
  leadTimes: Record<string, number> | null;
  riskRules: Array<{ status: string; daysBefore: number }> | null;
}

export async function findOrderDateSettings(
  db: Executor,
  vendorId: string,
): Promise<OrderDateSettingsRow | undefined> {
  const [row] = await db
    .select({ leadTimes: vendors.leadTimes, riskRules: vendors.riskRules })
    .from(vendors)
    .where(eq(vendors.id, vendorId))
    .limit(1);
  return row;
}

/** Writes both settings (null: back to the default); false when there is no such shop. */
export async function updateOrderDateSettings(
  db: Executor,
  vendorId: string,
  settings: OrderDateSettingsRow,
  at: Date,
): Promise<boolean> {
  const rows = await db
    .update(vendors)
    .set({ leadTimes: settings.leadTimes, riskRules: settings.riskRules, updatedAt: at })
    .where(eq(vendors.id, vendorId))
    .returning({ id: vendors.id });
  return rows.length > 0;
}
