// The one outbox loop (src/outbox-worker/loop.ts), with a sender made for the test and no
// database: it turns again at once while the sender works, sleeps until a NOTIFY, a wake(), the
// sender's next due time or the poll, logs a failed turn and goes on, and on stop lets the sender
// drain after its last turn.
import { describe, expect, it } from "vitest";
import type { Database } from "../../src/db/client.ts";
import { OutboxLoop, type OutboxSender, POLL_MS, type SenderLoop } from "../../src/outbox-worker/loop.ts";

/** A database that only listens: `notify` plays the write side's NOTIFY on commit. */
function listeningDatabase() {
  const listeners = new Map<string, () => void>();
  const database = {
    async listen(channel: string, onNotify: () => void) {
      listeners.set(channel, onNotify);
      return async () => {
        listeners.delete(channel);
      };
    },
  } as unknown as Database;
  return { database, notify: (channel: string) => listeners.get(channel)?.(), listeners };
}

/** A sender whose turns the test scripts: `work` answers from `plan`, then false. */
class ScriptedSender implements OutboxSender {
  readonly channel = "test_channel";
  readonly name = "scripted sender";
  turns: number[] = [];
  idles = 0;
  drained: number | undefined;
  dueInMs: number | undefined;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  constructor(
    readonly loop: SenderLoop,
    private readonly plan: Array<boolean | Error>,
  ) {}

  async work(): Promise<boolean> {
    this.turns.push(performance.now());
    for (const w of this.waiters.filter((w) => this.turns.length >= w.n)) w.resolve();
    const next = this.plan.shift() ?? false;
    if (next instanceof Error) throw next;
    return next;
  }
  async nextDueInMs() {
    return this.dueInMs;
  }
  idle() {
    this.idles++;
  }
  async drain(graceMs: number) {
    this.drained = graceMs;
  }
  /** Resolves once the loop has turned `n` times in all. */
  turned(n: number): Promise<void> {
    if (this.turns.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }
}

async function started(plan: Array<boolean | Error> = [], log?: { error: (...a: unknown[]) => void }) {
  const db = listeningDatabase();
  const loop = new OutboxLoop(db.database, (l) => new ScriptedSender(l, plan), log);
  await loop.start();
  return { loop, sender: loop.sender, ...db };
}

describe("the outbox loop", () => {
  it("turns again at once while its sender works, and sleeps once it finds nothing", async () => {
    const { loop, sender } = await started([true, true, true]);
    await sender.turned(4);
    // The fourth turn found nothing: the loop told the sender it idles, and sleeps (the poll).
    await expect.poll(() => sender.idles).toBe(1);
    expect(sender.turns).toHaveLength(4);
    await loop.stop(50);
  });

  it("wakes on a NOTIFY on its sender's channel and on wake(), long before the poll", async () => {
    const { loop, sender, notify } = await started();
    await sender.turned(1);
    await expect.poll(() => sender.idles).toBe(1);
    const notified = performance.now();
    notify("test_channel");
    await sender.turned(2);
    expect((sender.turns[1] as number) - notified).toBeLessThan(POLL_MS / 2);
    await expect.poll(() => sender.idles).toBe(2);
    const woken = performance.now();
    loop.wake();
    await sender.turned(3);
    expect((sender.turns[2] as number) - woken).toBeLessThan(POLL_MS / 2);
    await loop.stop(50);
  });

  it("sleeps no longer than its sender's next due time", async () => {
    const { loop, sender } = await started();
    sender.dueInMs = 40;
    loop.wake();
    await sender.turned(3);
    const gap = (sender.turns[2] as number) - (sender.turns[1] as number);
    expect(gap).toBeGreaterThanOrEqual(35);
    expect(gap).toBeLessThan(POLL_MS / 2);
    await loop.stop(50);
  });

  it("logs a failed turn with its sender's name and tries again after a poll", async () => {
    const errors: string[] = [];
    const { loop, sender } = await started([new Error("database away")], {
      error: (_: unknown, message: unknown) => errors.push(String(message)),
    });
    await sender.turned(2);
    expect(errors).toEqual(["scripted sender: a turn failed; retrying after the poll interval"]);
    expect((sender.turns[1] as number) - (sender.turns[0] as number)).toBeGreaterThanOrEqual(POLL_MS - 50);
    await loop.stop(50);
  });

  it("on stop: no turn after it, stops listening, and the sender drains within the grace period", async () => {
    const { loop, sender, listeners } = await started();
    await sender.turned(1);
    expect(loop.running).toBe(true);
    const stopping = loop.stop(1234);
    expect(loop.running).toBe(false);
    await stopping;
    const turns = sender.turns.length;
    expect(sender.drained).toBe(1234);
    expect(listeners.size).toBe(0);
    loop.wake();
    await new Promise((r) => setImmediate(r));
    expect(sender.turns).toHaveLength(turns);
  });
});
