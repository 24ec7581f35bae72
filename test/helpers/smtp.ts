// A real SMTP server for mail tests (smtp-server), on a random port of 127.0.0.1: it accepts every
// mail (optionally only with a user and password), parses each with mailparser, and can be
// stopped and started again on the same port (an SMTP outage). Beside it, `useMailSender` runs
// the service's own mail sender against it for a test file.
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { type ParsedMail, simpleParser } from "mailparser";
import type { Logger } from "pino";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll } from "vitest";
import type { Config } from "../../src/config.ts";
import { type Database, openDatabase, pgliteDatabase } from "../../src/db/client.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { type RunningMailSender, startMailSender } from "../../src/mail/sender.ts";
import { pgTarget } from "./pooler.ts";
import { eventually } from "./webhook-receiver.ts";

export interface ReceivedMail {
  parsed: ParsedMail;
  raw: string;
  envelopeTo: string[];
}

export interface SmtpSink {
  readonly port: number;
  /** smtp://[user:pass@]127.0.0.1:port */
  readonly url: string;
  readonly mails: ReceivedMail[];
  /** Every mail received so far to `address` (case-insensitive). */
  to(address: string): ReceivedMail[];
  /** Waits until `n` mails to `address` arrived; returns them. */
  waitFor(address: string, n?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Stops listening (connections refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpSink(
  options: {
    auth?: { user: string; pass: string };
    port?: number;
    /** Recipients answered with a permanent 550 at RCPT TO. */
    refuse?: (address: string) => boolean;
  } = {},
): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;
  const listen = async () => {
    const s = new SMTPServer({
      authOptional: !options.auth,
      allowInsecureAuth: true,
      disabledCommands: options.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
      logger: false,
      // Stopping drops open connections at once (the sender's pool keeps them open), as an outage does.
      closeTimeout: 50,
      onAuth(auth, _session, callback) {
        if (auth.username === options.auth?.user && auth.password === options.auth?.pass) {
          callback(null, { user: auth.username });
        } else callback(new Error("Invalid username or password"));
      },
      onRcptTo(address, _session, callback) {
        if (options.refuse?.(address.address)) {
          const err = new Error("No such user here") as Error & { responseCode: number };
          err.responseCode = 550;
          return callback(err);
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks);
          simpleParser(raw).then(
            (parsed) => {
              mails.push({
                parsed,
                raw: raw.toString("utf8"),
                envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              });
              callback();
            },
            (err) => callback(err),
          );
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    s.on("error", () => {});
    port = (s.server.address() as AddressInfo).port;
    server = s;
  };
  const unlisten = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  const to = (address: string) =>
    mails.filter((m) => m.envelopeTo.some((a) => a.toLowerCase() === address.toLowerCase()));
  const auth = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : "";
  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://${auth}127.0.0.1:${port}`;
    },
    mails,
    to,
    waitFor: (address, n = 1, timeoutMs = 10_000) =>
      eventually(async () => (to(address).length >= n ? to(address) : undefined), timeoutMs),
    stop: unlisten,
    start: listen,
    close: unlisten,
  };
}

/**
 * An SMTP sink and the service's mail sender sending to it, for one test file (started in
 * beforeAll, stopped in afterAll). `database` and `config` are read when it starts.
 */
export function useMailSender(
  app: () => { database: Database; config: Config },
  options: {
    retryDelaysMs?: number[];
    /**
     * The sender on a database handle of its own: the app's `queryCount()` then counts only the
     * requests' statements, not the sender's polls and claims running beside them.
     */
    ownHandle?: boolean;
  } = {},
): { sink: SmtpSink; sender: RunningMailSender } {
  let sink: SmtpSink | undefined;
  let sender: RunningMailSender | undefined;
  let database: Database | undefined;
  // What the sender logged (warnings, errors): told with the outbox's rows when a wait times out.
  const logged: string[] = [];
  const note = (obj: unknown, msg?: string) => {
    logged.push(`${msg ?? ""} ${JSON.stringify(obj, errorFields)}`);
  };
  beforeAll(async () => {
    sink = await startSmtpSink();
    const started = app();
    database = options.ownHandle ? await secondHandle(started.database) : started.database;
    sender = await startMailSender({
      config: {
        ...started.config,
        smtpUrl: sink.url,
        mailRetryDelaysMs: options.retryDelaysMs ?? [50, 100, 200],
      },
      database,
      log: { info: () => {}, warn: note, error: note } as unknown as Logger,
    });
  });
  afterAll(async () => {
    await sender?.stop(2_000);
    if (options.ownHandle) await database?.close();
    await sink?.close();
  });
  /** The sink, whose waits that time out say where each mail to the address is in the outbox. */
  const explained = (s: SmtpSink): SmtpSink => ({
    ...s,
    get port() {
      return s.port;
    },
    get url() {
      return s.url;
    },
    waitFor: async (address, n, timeoutMs) => {
      try {
        return await s.waitFor(address, n, timeoutMs);
      } catch (err) {
        const rows = database
          ? await queryRows(
              database.db,
              sql`select kind, status, attempts, next_attempt_at, last_error, sent_at, created_at
                  from mails where lower(to_address) = lower(${address}) order by created_at`,
            )
          : [];
        throw new Error(
          `${(err as Error).message}: ${s.to(address).length} of ${n ?? 1} mails to ${address} arrived; ` +
            `in the outbox ${JSON.stringify(rows)}; the sender logged ${JSON.stringify(logged)}`,
        );
      }
    },
  });
  return {
    get sink() {
      if (!sink) throw new Error("useMailSender starts in beforeAll");
      return explained(sink);
    },
    get sender() {
      if (!sender) throw new Error("useMailSender starts in beforeAll");
      return sender;
    },
  };
}

/** JSON.stringify's replacer that keeps an Error's message. */
function errorFields(_key: string, value: unknown): unknown {
  return value instanceof Error ? { error: value.message } : value;
}

/** Another handle on `database`'s data: its own statement count (PGlite: the same instance). */
async function secondHandle(database: Database): Promise<Database> {
  if (database.pglite) return pgliteDatabase(database.pglite, async () => {});
  if (!database.directUrl) throw new Error("a PostgreSQL database without its URL");
  return openDatabase(pgTarget(database.directUrl));
}
