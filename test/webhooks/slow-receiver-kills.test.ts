// Issue 31's outside crash test, as close as we can make it: the service (PGlite by default, one
// process) with a fast receiver and a slow one (SLOW_MS, 1.2 s per answer) both subscribed to
// every event, three writers (an order with a new customer, its status moved on, an appointment
// made and cancelled), six SIGKILLs (during writes, right after a write is acknowledged, and
// with 16 POSTs open at the slow receiver), about EVENTS events. Then, for SETTLE_MS after the
// writes stop, it watches the receivers (each logs a request once its body arrived whole), and
// prints per run, for the slow endpoint: every committed event's delivery status, attempts,
// whether the receiver logged it, and when it arrived after the writes stopped.
//
// A long run (minutes), so only when asked: SLOW_KILLS=1 npx vitest run test/webhooks/slow-receiver-kills
// (LAYOUT=apart: the API and a worker; TEST_DATABASE_URL: PostgreSQL; SLOW_KILLS_REPORT=file).
//
// What it showed (2026-11-27, 2-core host shared with other suites). Before d1f5e28, PGlite, one
// process, 1,602 and 1,609 events: 16 and 15 events the slow receiver had not got at +120 s, every
// one older than the newest it had got, created within 0.4 s, received by the fast one: the
// reserve the killed process held for the slow endpoint at the "16 POSTs open" kill (the 16 open
// had reached it). Their lease over, they were due at its end, behind the whole backlog queued
// meanwhile: at +120 s the log listed them PENDING with no attempt, and they arrived at +120.3 s
// to +127 s, just after the window; an observer who read the log a moment later saw them
// SUCCEEDED. A first run with 2,714 events left 1,403 behind at +120 s, among them 31 such
// events from the first 10 s of writes, which arrived last, at +229 s. PostgreSQL, one process,
// 5,910 events: 48 such. After (leases that end unrecorded, and reserves given back, due at their
// creation again): none in two PGlite runs (1,604 and 1,741 events), PostgreSQL one process
// (6,671) and apart (10,901; 12,865); what had not arrived at +120 s was the newest events, the slow
// endpoint's backlog (16 POSTs per 1.2 s, none for up to a lease after each kill, while the dead
// process's leases still count against the cap). No run had an event without a delivery, or one
// recorded SUCCEEDED that its receiver had not logged (judged once the log was read: the 10,901
// run, judged before, counted 29 whose records committed while the log was being paged).
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { eventTypes } from "../../src/modules/events/catalog.ts";
import { allPages, apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import {
  childEnv,
  processBackends,
  type ServerProcess,
  startService,
  startWorker,
  vendorWithKeyByCli,
} from "../helpers/processes.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const RUN = process.env.SLOW_KILLS === "1";
const KILLS = Number(process.env.KILLS ?? 6);
const EVENTS = Number(process.env.EVENTS ?? 1600);
const SLOW_MS = Number(process.env.SLOW_MS ?? 1200);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 120_000);
/** How long to keep watching after SETTLE_MS for what had not arrived (when it does). */
const LATE_MS = Number(process.env.LATE_MS ?? 120_000);
const LAYOUT = process.env.LAYOUT ?? "one process";
const REPORT = process.env.SLOW_KILLS_REPORT;

const { backends, track } = processBackends("slowkills");
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver answering 200 after `delayMs`; `open` counts requests not answered yet. */
async function slowReceiver(delayMs: number) {
  const state = { open: 0, onOpen: (_open: number) => {} };
  const receiver = await startReceiver(() => {
    state.open += 1;
    state.onOpen(state.open);
    const until = new Promise<void>((r) => setTimeout(r, delayMs).unref());
    void until.then(() => {
      state.open -= 1;
    });
    return { status: 200, until };
  });
  receivers.push(receiver);
  return { receiver, state };
}

describe.runIf(RUN).each(backends)("issue 31's outside crash test on $name", ({ name, db }) => {
  it(`${KILLS} SIGKILLs, a slow receiver (${SLOW_MS} ms), ~${EVENTS} events (${LAYOUT})`, async () => {
    const slow = await slowReceiver(SLOW_MS);
    const fast = await slowReceiver(5);
    const port = await freePort();
    const env = childEnv({
      ...(await db()),
      PORT: String(port),
      HOST: "127.0.0.1",
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      RATE_LIMIT_PER_MINUTE: "1000000",
      ...(process.env.KILL_TIMEOUT_MS ? { WEBHOOK_TIMEOUT_MS: process.env.KILL_TIMEOUT_MS } : {}),
    });
    const apart = LAYOUT !== "one process";
    const procs: { api: ServerProcess; worker?: ServerProcess } = {
      api: track(await startService(env, apart ? ["--role", "api"] : [])),
    };
    const startWorkerOf = async () => track(await startWorker(env));
    if (apart) procs.worker = await startWorkerOf();
    const api = apiClient(`http://127.0.0.1:${port}`);
    const { key } = await vendorWithKeyByCli(env, "SlowKills");
    const hooks: string[] = [];
    for (const r of [slow.receiver, fast.receiver]) {
      const hook = await api.post("/api/vendor/webhooks", { url: r.url, events: eventTypes }, { key });
      expect(hook.status).toBe(201);
      hooks.push(hook.body.id);
    }

    // Writers: an order with a new customer (2 events), then its status moved on (1), and every
    // fourth turn an appointment made and cancelled (2).
    let acknowledged = 0;
    let writing = true;
    // The writers stop at EVENTS once every kill was made: a fast backend is past EVENTS before
    // its last kill, which may wait for a write to be acknowledged.
    let killed = false;
    let onAck = () => {};
    const ack = (n: number) => {
      acknowledged += n;
      onAck();
    };
    const ok = (status: number | undefined) => status !== undefined && status < 300;
    const writer = async (w: number) => {
      for (let turn = 0; writing && (acknowledged < EVENTS || !killed); turn++) {
        const order = await api
          .post("/api/vendor/orders", { customerName: `W${w}-${turn}`, type: "SUIT" }, { key })
          .catch(() => undefined);
        if (!ok(order?.status)) {
          await pause(50); // the service is down: try again when it is back
          continue;
        }
        ack(2);
        const moved = await api
          .put(`/api/vendor/orders/${order?.body.id}/status`, { status: "IN_PRODUCTION" }, { key })
          .catch(() => undefined);
        if (ok(moved?.status)) ack(1);
        if (turn % 4 !== 0) continue;
        const start = new Date(Date.now() + 86_400_000 * (1 + (turn % 20))).toISOString();
        const appt = await api
          .post(
            "/api/vendor/appointments",
            { customerId: order?.body.customerId, date: start, duration: 30, type: "FITTING" },
            { key },
          )
          .catch(() => undefined);
        if (!ok(appt?.status)) continue;
        ack(1);
        const cancelled = await api
          .put(`/api/vendor/appointments/${appt?.body.id}`, { status: "CANCELLED" }, { key })
          .catch(() => undefined);
        if (ok(cancelled?.status)) ack(1);
      }
    };
    const writers = Array.from({ length: 3 }, (_, w) => writer(w));

    const moments: string[] = [];
    const kinds = ["during", "after-ack", "16-in-flight"] as const;
    const started = Date.now();
    for (let kill = 0; kill < KILLS; kill++) {
      const kind = kinds[kill % kinds.length] ?? "during";
      const threshold = Math.round((EVENTS * (kill + 1)) / (KILLS + 1));
      while (acknowledged < threshold) await pause(10);
      await new Promise<void>((resolve) => {
        if (kind === "during") setTimeout(resolve, Math.floor(Math.random() * 30));
        else if (kind === "after-ack") onAck = resolve;
        else {
          // With 16 POSTs open at the slow receiver (its cap), or whatever is open after 30 s.
          const timer = setTimeout(resolve, 30_000);
          const check = (open: number) => {
            if (open < 16) return;
            clearTimeout(timer);
            resolve();
          };
          slow.state.onOpen = check;
          check(slow.state.open);
        }
      });
      onAck = () => {};
      slow.state.onOpen = () => {};
      const openAtKill = slow.state.open;
      const killedAt = Date.now();
      const victim = procs.worker && Math.random() < 0.75 ? "worker" : "api";
      const proc = victim === "worker" ? (procs.worker as ServerProcess) : procs.api;
      proc.child.kill("SIGKILL");
      await proc.exited;
      if (victim === "worker") procs.worker = await startWorkerOf();
      else procs.api = track(await startService(env, apart ? ["--role", "api"] : []));
      moments.push(
        `${kind}(${openAtKill} open)@${((killedAt - started) / 1000).toFixed(1)}s+${((Date.now() - killedAt) / 1000).toFixed(1)}s`,
      );
    }
    killed = true;
    while (acknowledged < EVENTS) await pause(10);
    writing = false;
    await Promise.all(writers);
    const stoppedAt = Date.now();

    const events = await allPages(api, "/api/vendor/events", key, "events");
    const ids = events.map((e) => e.id as string);
    const arrivals = (r: Receiver) => {
      const m = new Map<string, number>();
      for (const q of r.requests) if (!m.has(q.body?.id)) m.set(q.body?.id, q.at - stoppedAt);
      return m;
    };
    const allArrived = (r: Receiver) => {
      const got = arrivals(r);
      return ids.every((id) => got.has(id));
    };
    while (Date.now() - stoppedAt < SETTLE_MS && !(allArrived(slow.receiver) && allArrived(fast.receiver)))
      await pause(250);
    const atSettle = arrivals(slow.receiver);
    const fastAtSettle = arrivals(fast.receiver);
    const logAtSettle = await allPages(api, `/api/vendor/webhooks/${hooks[0]}/deliveries`, key, "deliveries");
    const missing = ids.filter((id) => !atSettle.has(id));
    while (Date.now() - stoppedAt < SETTLE_MS + LATE_MS && !allArrived(slow.receiver)) await pause(250);
    const late = arrivals(slow.receiver);
    const logLate = await allPages(api, `/api/vendor/webhooks/${hooks[0]}/deliveries`, key, "deliveries");

    const describeDelivery = (d: any) =>
      `${d.status}/${d.attemptCount}${d.nextAttemptAt ? ` next ${d.nextAttemptAt}` : ""} attempts[${d.attempts
        .map((a: any) => `${a.attempt}:${a.statusCode ?? a.error}@${a.createdAt}`)
        .join(" ")}]`;
    const byEvent = (log: any[]) => {
      const m = new Map<string, any[]>();
      for (const d of log) m.set(d.eventId, [...(m.get(d.eventId) ?? []), d]);
      return m;
    };
    const settleLog = byEvent(logAtSettle);
    const lateLog = byEvent(logLate);
    const eventOf = new Map(events.map((e) => [e.id, e]));
    const lines = missing.map((id) => {
      const e = eventOf.get(id);
      return (
        `  ${id} ${e?.event} created ${e?.createdAt}: at +${SETTLE_MS / 1000}s ` +
        `[${(settleLog.get(id) ?? []).map(describeDelivery).join("; ") || "NO DELIVERY ROW"}]` +
        ` fast got it: ${fastAtSettle.has(id)}; later: ` +
        `${late.has(id) ? `arrived +${((late.get(id) ?? 0) / 1000).toFixed(1)}s` : "never"} ` +
        `[${(lateLog.get(id) ?? []).map(describeDelivery).join("; ")}]`
      );
    });
    const notSucceeded = logAtSettle.filter((d) => d.status !== "SUCCEEDED").length;
    // Against what the receiver had once the log was read: a delivery recorded SUCCEEDED while
    // the log was being paged (a backlog still draining) reached the receiver before its record.
    const received = arrivals(slow.receiver);
    const succeededNotReceivedIds = logLate
      .filter((d) => d.status === "SUCCEEDED" && !received.has(d.eventId))
      .map((d) => `${d.eventId} ${describeDelivery(d)}`);
    const succeededNotReceived = succeededNotReceivedIds.length;
    const noRow = ids.filter((id) => !lateLog.has(id)).length;
    const lastArrival = Math.max(...[...atSettle.values()]);
    // Missing events older than the newest event received: not a backlog's tail, but left behind.
    const created = (id: string) => Date.parse(eventOf.get(id)?.createdAt ?? "");
    const newestReceived = Math.max(...ids.filter((id) => atSettle.has(id)).map(created));
    const strandedIds = missing.filter((id) => created(id) < newestReceived);
    const spread = strandedIds.length
      ? `, created over ${((Math.max(...strandedIds.map(created)) - Math.min(...strandedIds.map(created))) / 1000).toFixed(1)}s`
      : "";
    const summary =
      `${name}, ${LAYOUT}: kills ${moments.join(", ")}; ${acknowledged} acknowledged, ${ids.length} events, ` +
      `writes ${((stoppedAt - started) / 1000).toFixed(1)}s; slow receiver: ${slow.receiver.requests.length} requests, ` +
      `${missing.length} events not received by +${SETTLE_MS / 1000}s (last arrival +${(lastArrival / 1000).toFixed(1)}s; ` +
      `${strandedIds.length} of them older than the newest received${spread}), ` +
      `log at +${SETTLE_MS / 1000}s: ${logAtSettle.length} deliveries, ${notSucceeded} not SUCCEEDED; ` +
      `finally: ${noRow} events without a delivery row, ${succeededNotReceived} SUCCEEDED not received, ` +
      `${ids.filter((id) => !late.has(id)).length} never received; fast: ${ids.filter((id) => !fastAtSettle.has(id)).length} missing`;
    const report = [
      summary,
      ...succeededNotReceivedIds.map((l) => `  SUCCEEDED, not received: ${l}`),
      ...lines,
    ].join("\n");
    console.log(report);
    if (REPORT) fs.appendFileSync(REPORT, `${report}\n\n`);
    for (const p of [procs.api, procs.worker]) p?.child.kill("SIGTERM");
    await Promise.all([procs.api.exited, procs.worker?.exited]);
    expect(noRow).toBe(0);
    expect(succeededNotReceived).toBe(0);
    expect(strandedIds).toEqual([]);
  }, 1_200_000);
});
