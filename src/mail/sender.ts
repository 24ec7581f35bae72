// The mail sender: the outbox loop's sender (src/outbox-worker/) for the mail outbox. Woken by a
// NOTIFY from enqueueMail (after commit), when a send of its own finishes, at the earliest retry
// it scheduled, and on the loop's poll (another process's retry, a lost notification). Each turn
// claims as many due mails as it has free slots (outbox.repository.ts: leased, SKIP LOCKED, so any
// number of workers share the queue) and sends each through the transport; the outcome is
// recorded on the row (attempts, last error, sent at). On stop it lets sends in flight finish
// within the grace period; one it abandons is due again when its lease ends.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { OutboxLoop, type OutboxSender, type SenderLoop } from "../outbox-worker/loop.ts";
import { composeMail, type Sender as MailFrom, parseMailFrom } from "./compose.ts";
import {
  type ClaimedMail,
  claimDueMails,
  MAIL_CHANNEL,
  recordMailFailure,
  recordMailSent,
} from "./outbox.repository.ts";
import { errorText, isPermanentRefusal, nextAttemptAt } from "./retry.ts";
import { createMailTransport, type MailTransport, SMTP_CONNECTIONS } from "./transport.ts";

export interface MailSenderDeps {
  config: Pick<
    Config,
    "smtpUrl" | "mailFrom" | "mailRetryDelaysMs" | "publicUrl" | "dataDir" | "mailBudget"
  > &
    Partial<Pick<Config, "productName">>;
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

export class MailSender implements OutboxSender {
  readonly channel = MAIL_CHANNEL;
  readonly name = "mail sender";
  private readonly transport: MailTransport;
  private readonly from: MailFrom;
  private readonly now: () => Date;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** The earliest retry this process scheduled (ms since the epoch): the loop sleeps no longer. */
  private retryAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly deps: MailSenderDeps,
    private readonly loop: SenderLoop,
  ) {
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

  /** One claim of as many due mails as there are free slots; true when it filled them all. */
  async work(): Promise<boolean> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0 || !this.loop.running) return false;
    const now = this.now();
    const { claimed, held } = await claimDueMails(
      this.deps.database.db,
      now,
      free,
      new Date(now.getTime() + this.leaseMs),
      this.deps.config.mailBudget,
    );
    for (const mail of held) {
      // Once when held and once when dropped, not at each look again. Never the address or the
      // data: which shop, which kind, and why.
      if (mail.heldBefore && mail.status === "HELD") continue;
      this.deps.log?.info(
        { mailId: mail.id, kind: mail.kind, vendorId: mail.vendorId, reason: mail.reason, until: mail.until },
        mail.status === "FAILED"
          ? "mail held too long; dropped unsent"
          : "mail held by the shop's mail budget",
      );
    }
    for (const mail of claimed) {
      const sending: Promise<void> = this.send(mail).finally(() => {
        this.inFlight.delete(sending);
        this.loop.wake();
      });
      this.inFlight.add(sending);
    }
    // Held mails took no slot, but the batch was full: more may be due.
    return claimed.length + held.length === free;
  }

  async nextDueInMs(): Promise<number | undefined> {
    if (this.retryAt === Number.POSITIVE_INFINITY) return undefined;
    const ms = this.retryAt - this.now().getTime();
    // Due now: forgotten, so the turn it wakes claims it (or the poll finds another's).
    if (ms <= 0) this.retryAt = Number.POSITIVE_INFINITY;
    return ms;
  }

  /** Lets sends in flight finish (and be recorded) within `graceMs`, then closes the transport. */
  async drain(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    this.transport.close();
  }

  private async send(mail: ClaimedMail): Promise<void> {
    const db = this.deps.database.db;
    const log = this.deps.log;
    // A mail its template cannot render never will: given up at once, like a refused recipient.
    let outcome: { error?: unknown; final?: boolean };
    try {
      const message = composeMail(mail, {
        publicUrl: this.deps.config.publicUrl,
        from: this.from,
        productName: this.deps.config.productName,
      });
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
      if (retryAt) this.retryAt = Math.min(this.retryAt, retryAt.getTime());
    } catch (err) {
      // The record failed (the database away): the lease ends and the mail is tried again.
      log?.error({ err, mailId: mail.id }, "mail sender: recording an attempt failed");
    }
  }
}

export interface RunningMailSender {
  /** Where mail goes (for the start-up log line): never the SMTP URL itself. */
  readonly description: string;
  /** Stops claiming; resolves once sends in flight finished (and were recorded), or after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** The mail sender in a loop of its own (src/outbox-worker/), started; `stop` drains it. */
export async function startMailSender(deps: MailSenderDeps): Promise<RunningMailSender> {
  const loop = new OutboxLoop(deps.database, (l) => new MailSender(deps, l), deps.log);
  await loop.start();
  return { description: loop.sender.description, stop: (graceMs = 10_000) => loop.stop(graceMs) };
}
