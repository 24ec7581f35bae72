// The day sweep (CONTRACT 12, Dates of an order): order.at_risk once per risk rule an order
// crosses, order.overdue once when a rental passes its due-back date not back, and the customer's
// reminder mail once the day before it is due back. Each is an order_alerts row written in the
// transaction that enqueues its event or mail (order-alerts.repository.ts): across any number of
// workers, and the writes that evaluate one order again, it happens once.
import type { ServiceContext } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { enqueueCustomerMail } from "../../mail/enqueue.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import {
  type AlertScope,
  type ClaimedAlert,
  claimOrderAlerts,
  findOrderRisk,
} from "./order-alerts.repository.ts";
import type { RiskRule } from "./order-dates.ts";
import { orderPayload } from "./orders.presenter.ts";
import { findOrderJson } from "./orders.repository.ts";
import type { OrderStatus } from "./orders.workflow.ts";

/** Alerts recorded per transaction of a sweep: a big backlog goes in several. */
const SWEEP_BATCH = 200;
/** How many batches one sweep takes at most (the next sweep goes on). */
const SWEEP_MAX_BATCHES = 50;

/** The rule an `at_risk:<STATUS>:<days>` key names. */
export function ruleOfKey(kind: string): RiskRule | undefined {
  const match = /^at_risk:([A-Z_]+):(\d+)$/.exec(kind);
  if (!match) return undefined;
  return { status: match[1] as OrderStatus, daysBefore: Number(match[2]) };
}

/** Events and mail of the alerts `claimed` in `tx` (the transaction that recorded them). */
async function announce(tx: Tx, claimed: readonly ClaimedAlert[], now: Date): Promise<void> {
  for (const alert of claimed) {
    if (alert.kind === "due_back_reminder") {
      if (alert.customerId === null || alert.dueBackDate === null) continue;
      await enqueueCustomerMail(tx, {
        kind: "rental_due_back",
        vendorId: alert.vendorId,
        customerId: alert.customerId,
        extra: {
          number: alert.number,
          model: alert.model,
          dueBackDate: alert.dueBackDate,
          trackingToken: alert.trackingToken,
          language: alert.language,
        },
        createdAt: now,
      });
      continue;
    }
    const json = await findOrderJson(tx, alert.vendorId, alert.orderId);
    if (!json) continue;
    const order = orderPayload(json);
    if (alert.kind === "overdue") {
      await enqueueEvent(tx, {
        vendorId: alert.vendorId,
        type: "order.overdue",
        data: { order },
        createdAt: now,
      });
      continue;
    }
    const rule = ruleOfKey(alert.kind);
    if (rule) {
      await enqueueEvent(tx, {
        vendorId: alert.vendorId,
        type: "order.at_risk",
        data: { order, rule },
        createdAt: now,
      });
    }
  }
}

/**
 * Records and announces the alerts due now for the orders in `scope`, inside `tx` (the caller's
 * transaction: an order's PATCH, a customer's new wedding date). Returns how many.
 */
export async function evaluateOrderAlerts(tx: Tx, scope: AlertScope, now: Date): Promise<number> {
  const claimed = await claimOrderAlerts(tx, scope, now, SWEEP_BATCH);
  await announce(tx, claimed, now);
  return claimed.length;
}

/**
 * One sweep over every shop (the worker's, every ORDER_SWEEP_INTERVAL_MS): batches of alerts, each
 * recorded and announced in its own transaction. Returns how many alerts it recorded.
 */
export async function sweepOrderAlerts(ctx: ServiceContext, scope: AlertScope = {}): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < SWEEP_MAX_BATCHES; batch++) {
    const n = await ctx.db.transaction(async (tx) => {
      const now = ctx.now();
      const claimed = await claimOrderAlerts(tx, scope, now, SWEEP_BATCH);
      await announce(tx, claimed, now);
      return claimed.length;
    });
    total += n;
    if (n < SWEEP_BATCH) break;
  }
  return total;
}

/** Runs the sweep now and then every `everyMs`; returns its stop function. */
export function startOrderAlertSweep(
  ctx: ServiceContext,
  everyMs: number,
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void },
): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const recorded = await sweepOrderAlerts(ctx);
      if (recorded > 0) log.info({ recorded }, "order alerts: at risk, overdue and due-back reminders");
    } catch (err) {
      log.error({ err }, "order alert sweep failed");
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the order page shows: the risk rules the order misses now, and whether it is overdue. */
export async function getOrderRisk(
  ctx: ServiceContext,
  vendorId: string,
  orderId: string,
): Promise<{ rules: RiskRule[]; overdue: boolean; language: string }> {
  const row = await findOrderRisk(ctx.db, vendorId, orderId, ctx.now());
  return row
    ? { rules: row.rules as RiskRule[], overdue: row.overdue, language: row.language }
    : { rules: [], overdue: false, language: "en" };
}
