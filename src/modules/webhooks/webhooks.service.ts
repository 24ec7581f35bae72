import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import type { Executor } from "../../db/client.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { isId, newId } from "../../lib/ids.ts";
import { optionalDateTime, requireDateTime } from "../../lib/instants.ts";
import { toPage } from "../../lib/pagination.ts";
import { enqueueEvent, notifyDispatchers } from "../../outbox/enqueue.ts";
import { generateWebhookSecret } from "../../webhook-delivery/signing.ts";
import { assertWebhookUrl, type UrlPolicy, UrlRefusedError } from "../../webhook-delivery/url-guard.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { eventCatalog, eventTypes, isEventType } from "../events/catalog.ts";
import { presentDelivery, presentWebhook } from "./webhooks.presenter.ts";
import {
  countWebhooks,
  type DeliveryFilter,
  deleteWebhookRow,
  findDeliveryById,
  findPendingDelivery,
  findWebhookById,
  findWebhookForUpdate,
  insertDeliveries,
  insertWebhook,
  listAttemptRows,
  listDeliveryRows,
  listWebhookRows,
  lockVendor,
  lockWebhook,
  makeDueNow,
  requeueRecoverable,
  updateWebhookRow,
} from "./webhooks.repository.ts";
import {
  ALL_EVENTS,
  type CreateWebhookBody,
  deliveryStatuses,
  type ListDeliveriesQuery,
  type ListWebhooksQuery,
  MAX_WEBHOOKS_PER_VENDOR,
  type RecoverBody,
  type RotateSecretBody,
  type UpdateWebhookBody,
} from "./webhooks.schemas.ts";

/** What the caller may see: subscribing to an event needs its resource's read scope (CONTRACT 7). */
export interface Caller {
  scopes: ReadonlySet<Scope>;
}

const DEFAULT_OVERLAP_SECONDS = 86_400;

/**
 * The subscription is known names, or `*` alone (every event type, present and future; CONTRACT
 * 12). With an OAuth token `*` needs the read scope of every subscribable event: an application
 * must not learn through webhooks what it cannot read.
 */
function assertEventScopes(caller: Caller, events: string[]): void {
  if (events.includes(ALL_EVENTS)) {
    if (events.length > 1) {
      throw fieldError(
        "validation_failed",
        "events",
        `"${ALL_EVENTS}" subscribes to every event and stands alone`,
      );
    }
    events = eventTypes;
  }
  for (const name of events) {
    if (!isEventType(name)) throw fieldError("validation_failed", "events", `unknown event ${name}`);
    const scope = eventCatalog[name].scope;
    if (!caller.scopes.has(scope)) {
      throw new AppError("insufficient_scope", `Subscribing to ${name} needs the ${scope} scope`, {
        headers: {
          "www-authenticate": `Bearer realm="vendor-api", error="insufficient_scope", scope="${scope}"`,
        },
        requiredScope: scope,
      });
    }
  }
}

async function checkUrl(url: string, policy: UrlPolicy): Promise<string> {
  try {
    // Stored as the vendor wrote it (the API echoes it back); it was checked as parsed.
    await assertWebhookUrl(url, policy);
    return url;
  } catch (err) {
    if (err instanceof UrlRefusedError) throw fieldError("validation_failed", "url", err.message);
    throw err;
  }
}

async function requireWebhook(ctx: ServiceContext, vendorId: string, id: string) {
  const row = isId(id) ? await findWebhookById(ctx.db, vendorId, id) : undefined;
  if (!row) throw notFound("Webhook");
  return row;
}

export async function registerWebhook(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateWebhookBody,
  caller: Caller,
  policy: UrlPolicy,
) {
  assertEventScopes(caller, input.events);
  const url = await checkUrl(input.url, policy);
  const now = ctx.now();
  const secret = generateWebhookSecret();
  const row = await ctx.db.transaction(async (tx) => {
    await lockVendor(tx, vendorId);
    if ((await countWebhooks(tx, vendorId)) >= MAX_WEBHOOKS_PER_VENDOR) {
      throw new AppError(
        "webhook_limit_reached",
        `A vendor may register at most ${MAX_WEBHOOKS_PER_VENDOR} webhooks`,
      );
    }
    const inserted = await insertWebhook(tx, {
      id: newId(),
      vendorId,
      url,
      events: input.events,
      status: "ACTIVE",
      secret,
      createdAt: now,
      updatedAt: now,
    });
    await recordActivity(tx, { vendorId, action: "webhook.created", subjectId: inserted.id, at: now });
    return inserted;
  });
  return { ...presentWebhook(row), secret };
}

/** A page of the vendor's webhooks, oldest first: `{ webhooks, nextCursor }` like every list. */
export async function listWebhooks(ctx: ServiceContext, vendorId: string, query: ListWebhooksQuery = {}) {
  const limit = query.limit ?? 100;
  const rows = await listWebhookRows(ctx.db, vendorId, { limit, cursor: decodeCursor(query.cursor) });
  const page = toPage(rows, limit, (r) => ({ t: r.createdAt.toISOString(), id: r.id }));
  return { webhooks: page.rows.map(presentWebhook), nextCursor: page.nextCursor };
}

export async function getWebhook(ctx: ServiceContext, vendorId: string, id: string) {
  return presentWebhook(await requireWebhook(ctx, vendorId, id));
}

/**
 * The webhook as retrieve answers it, as JSON text, with its row locked for the request's
 * transaction (If-Match, http/conditional.ts); undefined when there is none.
 */
export async function lockedWebhookJson(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<string | undefined> {
  const row = isId(id) ? await findWebhookForUpdate(ctx.db, vendorId, id) : undefined;
  return row && JSON.stringify(presentWebhook(row));
}

export async function updateWebhook(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateWebhookBody,
  caller: Caller,
  policy: UrlPolicy,
) {
  await requireWebhook(ctx, vendorId, id);
  if (input.events) assertEventScopes(caller, input.events);
  const url = input.url === undefined ? undefined : await checkUrl(input.url, policy);
  const at = ctx.now();
  const set: Parameters<typeof updateWebhookRow>[3] = { updatedAt: at };
  if (url !== undefined) set.url = url;
  if (input.events) set.events = input.events;
  if (input.status) {
    set.status = input.status;
    set.disabledReason = input.status === "DISABLED" ? "Disabled by the vendor" : null;
  }
  const row = await ctx.db.transaction(async (tx) => {
    const updated = await updateWebhookRow(tx, vendorId, id, set);
    if (!updated) throw notFound("Webhook");
    const fields = (["url", "events", "status"] as const).filter((f) => input[f] !== undefined);
    await recordActivity(tx, {
      vendorId,
      action: "webhook.updated",
      subjectId: id,
      at,
      detail: input.status ? { fields, status: input.status } : { fields },
    });
    return updated;
  });
  return presentWebhook(row);
}

export async function deleteWebhook(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id)) throw notFound("Webhook");
  await ctx.db.transaction(async (tx) => {
    if (!(await deleteWebhookRow(tx, vendorId, id))) throw notFound("Webhook");
    await recordActivity(tx, { vendorId, action: "webhook.deleted", subjectId: id, at: ctx.now() });
  });
}

/**
 * A new secret; the old one keeps signing for `overlapSeconds` (CONTRACT 7) so receivers can
 * switch without rejecting deliveries in between.
 */
export async function rotateWebhookSecret(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: RotateSecretBody,
) {
  const current = await requireWebhook(ctx, vendorId, id);
  const now = ctx.now();
  const overlap = input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  const secret = generateWebhookSecret();
  const expires = overlap > 0 ? new Date(now.getTime() + overlap * 1000) : null;
  await ctx.db.transaction(async (tx) => {
    const row = await updateWebhookRow(tx, vendorId, id, {
      secret,
      previousSecret: expires ? current.secret : null,
      previousSecretExpiresAt: expires,
      updatedAt: now,
    });
    if (!row) throw notFound("Webhook");
    await recordActivity(tx, { vendorId, action: "webhook.secret_rotated", subjectId: id, at: now });
  });
  return { id, secret, previousSecretExpiresAt: expires?.toISOString() ?? null };
}

/**
 * A vendor who asks for a delivery now (test, redeliver, recover) is saying the receiver is fixed:
 * the endpoint's circuit breaker closes, so the request is sent at once instead of after the
 * open period (a still-broken receiver opens it again after the usual run of failures).
 */
async function closeCircuit(tx: Executor, vendorId: string, id: string): Promise<void> {
  await updateWebhookRow(tx, vendorId, id, {
    consecutiveFailures: 0,
    failingSince: null,
    circuitOpenUntil: null,
  });
}

/** Emits `webhook.test` to this one endpoint; its delivery is queued in the same transaction. */
export async function sendTestEvent(ctx: ServiceContext, vendorId: string, id: string) {
  const hook = await requireWebhook(ctx, vendorId, id);
  return ctx.db.transaction(async (tx) => {
    await closeCircuit(tx, vendorId, hook.id);
    // Stamped inside the transaction, so no row is older than it (lossless sync, README).
    const now = ctx.now();
    const data = { webhookId: hook.id, message: "A test delivery from vendor-api" };
    const eventId = await enqueueEvent(tx, {
      vendorId,
      type: "webhook.test",
      data,
      createdAt: now,
      targetWebhookId: hook.id,
    });
    await recordActivity(tx, { vendorId, action: "webhook.test_sent", subjectId: hook.id, at: now });
    return { eventId };
  });
}

/**
 * The delivery log's filters, checked: `status` is one of the four (the schema's enum), `event`
 * a name of the event catalogue (`webhook.test` included), `eventId` an id. Anything else is a
 * 400 naming the field, not an empty page that looks like "no such deliveries".
 */
function deliveryFilter(query: ListDeliveriesQuery): DeliveryFilter {
  const filter: DeliveryFilter = {};
  if (query.status !== undefined) {
    if (!(deliveryStatuses as readonly string[]).includes(query.status)) {
      throw fieldError("validation_failed", "status", `must be one of ${deliveryStatuses.join(", ")}`);
    }
    filter.status = query.status;
  }
  if (query.event !== undefined) {
    if (!Object.hasOwn(eventCatalog, query.event)) {
      throw fieldError("validation_failed", "event", `unknown event ${query.event}`);
    }
    filter.eventType = query.event;
  }
  if (query.eventId !== undefined) {
    if (!isId(query.eventId)) throw fieldError("validation_failed", "eventId", "must be an event id");
    filter.eventId = query.eventId;
  }
  return filter;
}

export async function listDeliveries(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  query: ListDeliveriesQuery,
) {
  const hook = await requireWebhook(ctx, vendorId, id);
  const limit = query.limit ?? 100;
  const filter = deliveryFilter(query);
  const rows = await listDeliveryRows(ctx.db, hook.id, limit, decodeCursor(query.cursor), filter);
  const page = toPage(rows, limit, (d) => ({ t: d.createdAt.toISOString(), id: d.id }));
  const attempts = await listAttemptRows(
    ctx.db,
    page.rows.map((d) => d.id),
  );
  return {
    deliveries: page.rows.map((d) =>
      presentDelivery(
        d,
        attempts.filter((a) => a.deliveryId === d.id),
      ),
    ),
    nextCursor: page.nextCursor,
  };
}

async function requireDelivery(ctx: ServiceContext, vendorId: string, id: string, deliveryId: string) {
  const hook = await requireWebhook(ctx, vendorId, id);
  const row = isId(deliveryId) ? await findDeliveryById(ctx.db, hook.id, deliveryId) : undefined;
  if (!row) throw notFound("Delivery");
  return row;
}

export async function getDelivery(ctx: ServiceContext, vendorId: string, id: string, deliveryId: string) {
  const row = await requireDelivery(ctx, vendorId, id, deliveryId);
  return presentDelivery(row, await listAttemptRows(ctx.db, [row.id]));
}

/**
 * Sends the delivery's event again. At most one attempt of an event is in flight to an endpoint:
 * while the event has a PENDING delivery to this endpoint (a retry waits, or an attempt is in
 * flight), that delivery is the answer, made due now if it waits for a retry; otherwise a new
 * delivery (its own id and attempts). Under the webhook's row lock, so redelivers at once and a
 * recover take turns and never queue the event twice.
 */
export async function redeliver(ctx: ServiceContext, vendorId: string, id: string, deliveryId: string) {
  const original = await requireDelivery(ctx, vendorId, id, deliveryId);
  return ctx.db.transaction(async (tx) => {
    await closeCircuit(tx, vendorId, original.webhookId);
    const now = ctx.now();
    const pending = await findPendingDelivery(tx, original.webhookId, original.eventId);
    await recordActivity(tx, {
      vendorId,
      action: "webhook.redelivered",
      subjectId: original.webhookId,
      at: now,
      detail: { eventId: original.eventId },
    });
    if (pending) {
      await makeDueNow(tx, pending.id, now);
      await notifyDispatchers(tx);
      return { deliveryId: pending.id, eventId: original.eventId };
    }
    const newDeliveryId = newId();
    await insertDeliveries(tx, [
      {
        id: newDeliveryId,
        webhookId: original.webhookId,
        vendorId,
        eventId: original.eventId,
        eventType: original.eventType,
        status: "PENDING",
        nextAttemptAt: now,
        redeliveryOf: original.id,
        createdAt: now,
        updatedAt: now,
      },
    ]);
    await notifyDispatchers(tx);
    return { deliveryId: newDeliveryId, eventId: original.eventId };
  });
}

/**
 * Re-queues every FAILED or SKIPPED (the endpoint was disabled) delivery created in
 * [since, until), one new delivery per event, due in the order the events happened.
 */
export async function recoverDeliveries(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: RecoverBody,
) {
  const hook = await requireWebhook(ctx, vendorId, id);
  const now = ctx.now();
  const since = requireDateTime("since", input.since);
  const until = optionalDateTime("until", input.until) ?? now;
  if (until <= since) throw fieldError("validation_failed", "until", "must be after since");
  return ctx.db.transaction(async (tx) => {
    await lockWebhook(tx, vendorId, hook.id);
    const count = await requeueRecoverable(tx, hook, { since, until }, now);
    await recordActivity(tx, {
      vendorId,
      action: "webhook.recovered",
      subjectId: hook.id,
      at: now,
      detail: { count },
    });
    if (count > 0) {
      await closeCircuit(tx, vendorId, hook.id);
      await notifyDispatchers(tx);
    }
    return { count };
  });
}
