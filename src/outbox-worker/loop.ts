// The one loop that empties an outbox: every kind of outgoing message (webhook deliveries in
// src/webhook-delivery/, mail in src/mail/) is an OutboxSender run by it, so a new kind is one new sender
// plus its catalog entries, never a second loop (README.md beside this file).
//
// A turn of the loop asks the sender to work (claim what is due and start sending it). A sender
// that did work is asked again at once, since more may be due; one that found nothing to do is
// put to sleep until the earliest of: a NOTIFY on its channel (the write side's, sent on commit),
// a wake() (a send of its own ended, freeing a slot), the next due time it knows of, and the poll
// interval (the fallback for a lost notification or another process's retry). On stop the loop
// ends its turn, then the sender drains: sends in flight finish within the grace period, and any
// it abandons are due again when their lease ends (at-least-once).
import type { Logger } from "pino";
import type { Database } from "../db/client.ts";

/** The longest a sleeping sender waits with nothing said: the fallback for a lost notification. */
export const POLL_MS = 1_000;

/** What the loop hands a sender: a way to wake the loop, and whether the loop still runs. */
export interface SenderLoop {
  wake(): void;
  readonly running: boolean;
}

export interface OutboxSender {
  /** The NOTIFY channel its write side signals on commit. */
  readonly channel: string;
  /** Names it in the loop's error log. */
  readonly name: string;
  /** Claims and starts what is due: true when it did work (the loop turns again at once). */
  work(): Promise<boolean>;
  /** Before a sleep: milliseconds until its next due time, if it knows of one sooner than a poll. */
  nextDueInMs(): Promise<number | undefined>;
  /** Told each time it sleeps with nothing to do (tests wait on it instead of on time). */
  idle?(): void;
  /** After the loop's last turn: finishes or abandons what is in flight within `graceMs`. */
  drain(graceMs: number): Promise<void>;
}

export class OutboxLoop<S extends OutboxSender = OutboxSender> implements SenderLoop {
  readonly sender: S;
  private isRunning = true;
  private pendingWake = false;
  private wakeUp: (() => void) | undefined;
  private unlisten: () => Promise<void> = async () => {};
  private done: Promise<void> = Promise.resolve();

  /** `build` makes the sender with this loop at hand (to wake it, to see it stop). */
  constructor(
    private readonly database: Database,
    build: (loop: SenderLoop) => S,
    private readonly log?: Pick<Logger, "error">,
  ) {
    this.sender = build(this);
  }

  get running(): boolean {
    return this.isRunning;
  }

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(this.sender.channel, () => this.wake());
    this.done = this.run();
  }

  wake(): void {
    this.pendingWake = true;
    this.wakeUp?.();
  }

  /** Stops turning; resolves once the sender has drained (within `graceMs`). */
  async stop(graceMs: number): Promise<void> {
    this.isRunning = false;
    this.wake();
    await this.unlisten();
    await this.done;
    await this.sender.drain(graceMs);
  }

  private async run(): Promise<void> {
    while (this.isRunning) {
      this.pendingWake = false;
      try {
        if (await this.sender.work()) continue;
        this.sender.idle?.();
        await this.sleep(await this.sender.nextDueInMs());
      } catch (err) {
        // The database away, most likely: the next poll tries again.
        this.log?.error({ err }, `${this.sender.name}: a turn failed; retrying after the poll interval`);
        await this.sleep(undefined);
      }
    }
  }

  private async sleep(dueInMs: number | undefined): Promise<void> {
    const ms = Math.max(0, Math.min(POLL_MS, dueInMs ?? POLL_MS));
    if (this.pendingWake || !this.isRunning || ms === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = undefined;
  }
}
