// The mail outbox (CONTRACT 10): a mail is a row written in its cause's transaction, sent by
// the worker's mail sender over real SMTP (smtp-server, read back with mailparser), recorded on the
// row, retried through an SMTP outage without loss, and never sent for a rolled-back change.
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { enqueueMail } from "../../src/mail/enqueue.ts";
import { startMailSender } from "../../src/mail/sender.ts";
import { startSmtpSink } from "../helpers/smtp.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

// Its own database on PostgreSQL: another file's sender must not send this file's mail.
const t = useTestApp({ ownDatabase: true });

let seq = 0;
const address = () => `person-${Date.now()}-${seq++}@example.test`;

async function enqueue(to: string) {
  return t.ctx.db.transaction((tx) =>
    enqueueMail(tx, { kind: "signup_existing", to, data: {}, vendorId: null, createdAt: new Date() }),
  );
}

async function mailRow(id: string) {
  const [row] = await queryRows<{
    status: string;
    attempts: number;
    last_error: string | null;
    sent_at: string | Date | null;
    secret: string | null;
  }>(t.database.db, sql`select status, attempts, last_error, sent_at, secret from mails where id = ${id}`);
  return row;
}

describe("mail over SMTP", () => {
  const sinkReady = startSmtpSinkOnce();
  const logLines: string[] = [];
  let stopSender: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const sink = await sinkReady;
    const sender = await startMailSender({
      config: { ...t.config, smtpUrl: sink.url, mailRetryDelaysMs: [50, 100, 200] },
      database: t.database,
      log: logger(logLines),
    });
    stopSender = () => sender.stop(2_000);
  });
  afterAll(async () => {
    await stopSender?.();
    await (await sinkReady).close();
  });

  it("sends a committed mail once, with a stable Message-ID, and records it sent", async () => {
    const sink = await sinkReady;
    const to = address();
    const id = await enqueue(to);
    const [mail] = await sink.waitFor(to);
    expect(mail?.parsed.subject).toBe("You already have a Atelier Desk account");
    expect(mail?.parsed.messageId).toMatch(new RegExp(`^<${id}@`));
    expect(mail?.parsed.headers.get("auto-submitted")).toBe("auto-generated");
    expect(mail?.parsed.text).toContain(`${t.url}/forgot-password`);
    expect(mail?.parsed.html).toContain(`href="${t.url}/login"`);
    const row = await eventually(async () => {
      const r = await mailRow(id);
      return r?.status === "SENT" ? r : undefined;
    });
    expect(row).toMatchObject({ attempts: 1, last_error: null });
    expect(row.sent_at).not.toBeNull();
  });

  it("sends nothing for a rolled-back change", async () => {
    const sink = await sinkReady;
    const to = address();
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await enqueueMail(tx, {
          kind: "signup_existing",
          to,
          data: {},
          vendorId: null,
          createdAt: new Date(),
        });
        throw new Error("the change fails after its mail was written");
      }),
    ).rejects.toThrow("the change fails");
    // A mail committed afterwards arrives; the rolled-back one never does.
    const later = address();
    await enqueue(later);
    await sink.waitFor(later);
    const rows = await queryRows(t.database.db, sql`select id from mails where to_address = ${to}`);
    expect(rows).toHaveLength(0);
    expect(sink.to(to)).toHaveLength(0);
  });

  it("an SMTP outage delays mail and loses none", async () => {
    const sink = await sinkReady;
    await sink.stop();
    const recipients = [address(), address(), address()];
    const ids = await Promise.all(recipients.map((to) => enqueue(to)));
    // Each was tried and refused at least twice while the server was down.
    for (const id of ids) {
      await eventually(async () => {
        const r = await mailRow(id);
        return r && r.attempts >= 2 && r.status === "PENDING" && r.last_error?.includes("ECONNREFUSED");
      });
    }
    await sink.start();
    for (const to of recipients) await sink.waitFor(to);
    for (const id of ids) {
      await eventually(async () => (await mailRow(id))?.status === "SENT");
    }
    expect(recipients.map((to) => sink.to(to).length)).toEqual([1, 1, 1]);
  });
});

describe("a permanent refusal", () => {
  it("gives up at once on a recipient the server refuses for good, and keeps the reason", async () => {
    const refusing = await startSmtpSink({ refuse: (a) => a.startsWith("nobody") });
    const sender = await startMailSender({
      config: { ...t.config, smtpUrl: refusing.url, mailRetryDelaysMs: [50] },
      database: t.database,
    });
    try {
      const id = await enqueue(`nobody-${address()}`);
      const row = await eventually(async () => {
        const r = await mailRow(id);
        return r?.status === "FAILED" ? r : undefined;
      });
      expect(row.attempts).toBe(1);
      expect(row.last_error).toContain("550");
    } finally {
      await sender.stop(2_000);
      await refusing.close();
    }
  });
});

describe("SMTP credentials in the URL", () => {
  it("signs in with them and never writes the password to the log or the row", async () => {
    const secret = "s3cret-Pa55word";
    const sink = await startSmtpSink({ auth: { user: "mailer", pass: secret } });
    const lines: string[] = [];
    const good = await startMailSender({
      config: { ...t.config, smtpUrl: sink.url, mailRetryDelaysMs: [50] },
      database: t.database,
      log: logger(lines),
    });
    try {
      const to = address();
      await enqueue(to);
      await sink.waitFor(to);
    } finally {
      await good.stop(2_000);
    }
    // A wrong password: the attempt fails and is retried, its error kept without the password.
    const wrong = "wr0ng-Pa55word";
    const bad = await startMailSender({
      config: {
        ...t.config,
        smtpUrl: sink.url.replace(encodeURIComponent(secret), wrong),
        mailRetryDelaysMs: [60_000],
      },
      database: t.database,
      log: logger(lines),
    });
    try {
      const id = await enqueue(address());
      const row = await eventually(async () => {
        const r = await mailRow(id);
        return r?.last_error ? r : undefined;
      });
      expect(row.status).toBe("PENDING");
      expect(row.last_error).not.toContain(wrong);
      expect(bad.description).not.toContain(wrong);
    } finally {
      await bad.stop(2_000);
      await sink.close();
    }
    const log = lines.join("\n");
    expect(log).not.toContain(secret);
    expect(log).not.toContain(wrong);
  });
});

describe("without SMTP_URL", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = tempDir("mail-eml");
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("writes each mail as an .eml file under DATA_DIR/mail (0700, 0600) and logs its path", async () => {
    const lines: string[] = [];
    const umask = process.umask(0o022);
    const sender = await startMailSender({
      config: { ...t.config, smtpUrl: undefined, dataDir },
      database: t.database,
      log: logger(lines),
    });
    try {
      const to = address();
      const id = await enqueue(to);
      await eventually(async () => (await mailRow(id))?.status === "SENT");
      const dir = path.join(dataDir, "mail");
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      const files = fs.readdirSync(dir);
      const file = files.map((f) => path.join(dir, f)).find((f) => fs.readFileSync(f, "utf8").includes(to));
      expect(file).toBeDefined();
      expect(fs.statSync(file as string).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file as string, "utf8")).toContain(`Message-ID: <${id}@`);
      expect(lines.join("\n")).toContain(file as string);
    } finally {
      process.umask(umask);
      await sender.stop(2_000);
    }
  });
});

function startSmtpSinkOnce() {
  let sink: ReturnType<typeof startSmtpSink> | undefined;
  return {
    // biome-ignore lint/suspicious/noThenProperty: a lazily started sink awaited like a promise
    then<T>(resolve: (s: Awaited<ReturnType<typeof startSmtpSink>>) => T, reject?: (e: unknown) => T) {
      sink ??= startSmtpSink();
      return sink.then(resolve, reject);
    },
  };
}

function logger(lines: string[]) {
  const write = (obj: unknown, msg: string) => lines.push(`${JSON.stringify(obj)} ${msg}`);
  return { info: write, warn: write, error: write } as never;
}
