// The mail sender: the worker's loop that empties the mail outbox. It wakes on a NOTIFY from
// enqueueMail (after commit), when a send finishes, when a retry this process scheduled falls
// due, and on a 1 s poll as a fallback (a lost notification, another process's retry). Each turn
// claims as many due mails as it has free slots (outbox.repository.ts: leased, SKIP LOCKED, so any
// number of workers share the queue) and sends each through the transport; the outcome is
// recorded on the row (attempts, last error, sent at). On stop it lets sends in flight finish
// within the grace period; one it abandons is due again when its lease ends.
//
// This is deliberately a small loop of its own, beside the webhook dispatcher: the delivery
// model with a sender seam (src/webhook-delivery/) was not on main when mail landed. Folding it
// in means: claimDueMails as the claim, composeMail + transport.send as the attempt,
// recordMailSent/recordMailFailure as the record, retry.ts as the policy.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { composeMail, parseMailFrom, type Sender } from "./compose.ts";
import { MAIL_CHANNEL } from "./enqueue.ts";
import { type ClaimedMail, claimDueMails, recordMailFailure, recordMailSent } from "./outbox.repository.ts";
import { errorText, isPermanentRefusal, nextAttemptAt } from "./retry.ts";
import { createMailTransport, type MailTransport, SMTP_CONNECTIONS } from "./transport.ts";

const POLL_MS = 1_000;

export interface MailSenderDeps {
  config: Pick<Config, "smtpUrl" | "mailFrom" | "mailRetryDelaysMs" | "publicUrl" | "dataDir">;
  database: Database;
  log?: Pick<Logger, "info" | "warn" | "error">;
  now?: () => Date;
  /** Defaults to SMTP_URL's, or .eml files under DATA_DIR/mail/. */
  transport?: MailTransport;
  /** Mails in flight at once (default: the SMTP pool's connections). */
  concurrency?: number;
  /** Longest time a send may take before its lease ends and another sender may take the mail. */
  leaseMs?: number;
}

export class MailSender {
  private readonly transport: MailTransport;
  private readonly from: Sender;
  private readonly now: () => Date;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  private loop: Promise<void> | undefined;
  /** Set by wake(): the next sleep returns at once. */
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt = Number.POSITIVE_INFINITY;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly deps: MailSenderDeps) {
    this.transport =
      deps.transport ??
      createMailTransport({ smtpUrl: deps.config.smtpUrl, dataDir: deps.config.dataDir, log: deps.log });
    this.from = parseMailFrom(deps.config.mailFrom);
    this.now = deps.now ?? (() => new Date());
    this.concurrency = deps.concurrency ?? SMTP_CONNECTIONS;
    this.leaseMs = deps.leaseMs ?? 120_000;
  }

  /** Where mail goes (for the start-up log line): never the SMTP URL itself. */
  get description(): string {
    return this.transport.description;
  }

  async start(): Promise<void> {
    this.unlisten = await this.deps.database.listen(MAIL_CHANNEL, () => this.wake());
    this.loop = this.run();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming; resolves once sends in flight finished (and were recorded), or after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    this.wake();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    await this.unlisten?.();
    this.transport.close();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let full = false;
      try {
        full = await this.tick();
      } catch (err) {
        // The database away: try again on the next poll.
        this.deps.log?.error({ err }, "mail sender: claiming mail failed");
      }
      if (!full) await this.sleep(POLL_MS);
    }
  }

  /** One claim; true when it filled every free slot (more may be due at once). */
  private async tick(): Promise<boolean> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return false;
    const now = this.now();
    const claimed = await claimDueMails(
      this.deps.database.db,
      now,
      free,
      new Date(now.getTime() + this.leaseMs),
    );
    for (const mail of claimed) {
      const sending: Promise<void> = this.send(mail).finally(() => {
        this.inFlight.delete(sending);
        this.wake();
      });
      this.inFlight.add(sending);
    }
    return claimed.length === free;
  }

  private async send(mail: ClaimedMail): Promise<void> {
    const db = this.deps.database.db;
    const log = this.deps.log;
    // A mail its template cannot render never will: given up at once, like a refused recipient.
    let outcome: { error?: unknown; final?: boolean };
    try {
      const message = composeMail(mail, { publicUrl: this.deps.config.publicUrl, from: this.from });
      try {
        await this.transport.send(message);
        outcome = {};
      } catch (error) {
        outcome = { error, final: isPermanentRefusal(error) };
      }
    } catch (error) {
      outcome = { error, final: true };
    }
    try {
      if (outcome.error === undefined) {
        await recordMailSent(db, mail, this.now());
        return;
      }
      const retryAt = outcome.final
        ? undefined
        : nextAttemptAt(mail.attempts, this.deps.config.mailRetryDelaysMs, mail.createdAt, this.now());
      const error = errorText(outcome.error);
      await recordMailFailure(db, mail, error, retryAt);
      log?.warn(
        { mailId: mail.id, kind: mail.kind, attempts: mail.attempts, error, retryAt },
        retryAt ? "mail not sent; will retry" : "mail not sent; given up",
      );
      if (retryAt) this.scheduleRetry(retryAt);
    } catch (err) {
      // The record failed (the database away): the lease ends and the mail is tried again.
      log?.error({ err, mailId: mail.id }, "mail sender: recording an attempt failed");
    }
  }

  /** Wakes this process when the earliest retry it scheduled falls due (the poll covers others). */
  private scheduleRetry(at: Date): void {
    const t = at.getTime();
    if (t >= this.retryAt) return;
    this.retryAt = t;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(
      () => {
        this.retryAt = Number.POSITIVE_INFINITY;
        this.wake();
      },
      Math.max(0, t - this.now().getTime()),
    );
    this.retryTimer.unref();
  }

  private async sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = undefined;
    this.woken = false;
  }
}

export async function startMailSender(deps: MailSenderDeps): Promise<MailSender> {
  const sender = new MailSender(deps);
  await sender.start();
  return sender;
}
