// How a composed mail leaves: over SMTP (SMTP_URL, `smtp://` or `smtps://`, credentials in the
// URL) through a small pool of connections, or, without SMTP_URL (the embedded default), written
// as an .eml file under DATA_DIR/mail/ (0700 directory, 0600 files, whatever the umask) so a
// newcomer sees what would have been sent. The URL is never logged or stored: an error keeps
// nodemailer's message with the URL's password taken out.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { Transporter } from "nodemailer";
import type Mail from "nodemailer/lib/mailer";

export interface MailTransport {
  /** Sends one mail; resolves with where it went (the .eml's path, or the SMTP server's answer). */
  send(message: Mail.Options): Promise<string>;
  /** What the log says about the transport: never the URL. */
  readonly description: string;
  close(): void;
}

/** How many SMTP connections the sender keeps open at most (nodemailer's pool). */
export const SMTP_CONNECTIONS = 4;

type Nodemailer = typeof import("nodemailer").default;
let nodemailerLoaded: Promise<Nodemailer> | undefined;

/** nodemailer is loaded at the first mail, not at start (docs/decisions/0016). */
function loadNodemailer(): Promise<Nodemailer> {
  nodemailerLoaded ??= import("nodemailer").then((m) => m.default);
  return nodemailerLoaded;
}

/**
 * `make()`'s transporter, made at the first send and kept. One made after `close()` is closed as
 * it is made, so a send after `close()` meets a closed transporter, as it did when it was made at
 * start.
 */
function lazyTransporter(make: (nodemailer: Nodemailer) => Transporter) {
  let made: Promise<Transporter> | undefined;
  let closed = false;
  return {
    get: () => {
      made ??= loadNodemailer().then((nodemailer) => {
        const transporter = make(nodemailer);
        if (closed) transporter.close();
        return transporter;
      });
      return made;
    },
    close: () => {
      closed = true;
      made?.then((transporter) => transporter.close()).catch(() => {});
    },
  };
}

export function createMailTransport(options: {
  smtpUrl: string | undefined;
  dataDir: string;
  log?: { info(obj: unknown, msg: string): void };
}): MailTransport {
  if (options.smtpUrl) return smtpTransport(options.smtpUrl);
  return emlTransport(path.join(options.dataDir, "mail"), options.log);
}

function smtpTransport(smtpUrl: string): MailTransport {
  const url = new URL(smtpUrl);
  const password = decodeURIComponent(url.password);
  const transporter = lazyTransporter((nodemailer) =>
    nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: SMTP_CONNECTIONS,
      // Bounded waits: a server that stopped answering fails the attempt, which is retried later.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      logger: false,
    }),
  );
  return {
    description: `SMTP ${url.protocol}//${url.hostname}:${url.port || (url.protocol === "smtps:" ? 465 : 587)}`,
    async send(message) {
      try {
        const info = await (await transporter.get()).sendMail(message);
        return String(info.response ?? "sent");
      } catch (err) {
        throw redacted(err, password);
      }
    },
    close: () => transporter.close(),
  };
}

function redacted(err: unknown, password: string): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  if (password && e.message.includes(password)) e.message = e.message.replaceAll(password, "***");
  return e;
}

function emlTransport(
  dir: string,
  log: { info(obj: unknown, msg: string): void } | undefined,
): MailTransport {
  const composer = lazyTransporter((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" }),
  );
  let ready: Promise<void> | undefined;
  const ensureDir = async () => {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is masked by the umask, and an existing directory keeps its own: set it.
    await fs.chmod(dir, 0o700);
  };
  return {
    description: `files in ${dir}`,
    async send(message) {
      ready ??= ensureDir().catch((err) => {
        ready = undefined;
        throw err;
      });
      await ready;
      const info = await (await composer.get()).sendMail(message);
      const stamp = new Date().toISOString().replaceAll(":", "-").replace(/\..*$/, "");
      const file = path.join(dir, `${stamp}-${randomBytes(4).toString("hex")}.eml`);
      // 0600 whatever the umask (open's mode is masked): the mail may hold a reset link.
      const handle = await fs.open(file, "wx", 0o600);
      try {
        await handle.chmod(0o600);
        await handle.writeFile(info.message as Buffer);
      } finally {
        await handle.close();
      }
      // The path only: addresses and subjects are personal data, which the log does not keep.
      log?.info({ path: file, messageId: message.messageId }, "mail written as a file (no SMTP_URL)");
      return file;
    },
    close: () => composer.close(),
  };
}
