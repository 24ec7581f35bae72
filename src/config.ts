// The only module that reads process.env: every setting is parsed here, every invalid variable
// is reported at once, and the result is a frozen object passed down explicitly.
import path from "node:path";

export type Role = "all" | "api" | "worker";
export type DatabasePoolMode = "session" | "transaction";

export interface Config {
  readonly env: "development" | "production" | "test";
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  /**
   * What webhook POSTs say they come from: the PUBLIC_URL when it is set. Without it the URL is a
   * guess from HOST and PORT, and a `--role worker` would advertise a port it does not serve (3000).
   */
  readonly webhookUserAgent: string;
  readonly databaseUrl: string | undefined;
  /**
   * PostgreSQL itself, never a transaction pooler: LISTEN, migrations and anything else that needs
   * a session of its own (defaults to `databaseUrl`).
   */
  readonly databaseDirectUrl: string | undefined;
  /**
   * `transaction`: `databaseUrl` is a transaction pooler (PgBouncer's pool_mode=transaction), so the
   * pool sends no named prepared statements and no session settings (db/client.ts).
   */
  readonly databasePoolMode: DatabasePoolMode;
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  /** JSON lines for machines; `pretty` (pino-pretty) for a person at a terminal. */
  readonly logFormat: "json" | "pretty";
  readonly sessionSecret: string | undefined;
  /** Failed sign-ins allowed per client address, and per account, in 15 minutes. */
  readonly signInFailuresPerAddress: number;
  readonly signInFailuresPerAccount: number;
  /** Requests per minute per client address to the sign-in pages (CONTRACT 8: stricter). */
  readonly signInRateLimitPerMinute: number;
  /** Requests per minute per client address over the dashboard's pages and assets. */
  readonly dashboardRequestsPerMinute: number;
  readonly rateLimitPerMinute: number;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key, so deployments (or test runs) sharing one Redis never collide. */
  readonly redisKeyPrefix: string;
  /** The longest a request waits for Redis's count before this process's memory counts it. */
  readonly redisWaitMs: number;
  readonly webhookTimeoutMs: number;
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookAllowPrivateUrls: boolean;
  /** Deliveries in flight at once to one endpoint, across all dispatchers (fairness, CONTRACT 7). */
  readonly webhookEndpointConcurrency: number;
  /** Consecutive failures (timeouts, connection errors, 5xx, 429) that open an endpoint's circuit. */
  readonly webhookBreakerFailures: number;
  /** The shortest time an open circuit waits before a probe; it grows with the outage. */
  readonly webhookBreakerCooldownMs: number;
  /** The event stream (GET /api/vendor/events/stream): comment heartbeat, poll interval, open streams per shop and process. */
  readonly eventStreamHeartbeatMs: number;
  /** How soon a woken stream polls again while catching up (or while NOTIFYs cannot be trusted). */
  readonly eventStreamPollMs: number;
  /** The fallback poll of an idle stream, for a NOTIFY lost on its way (CONTRACT 12: ≤ 0.2 tx/s per idle stream). */
  readonly eventStreamIdlePollMs: number;
  readonly eventStreamMaxPerShop: number;
  readonly shutdownGraceMs: number;
  /** How often a worker sweeps for orders at risk, overdue rentals and due-back reminders (order-alerts.service.ts). */
  readonly orderSweepMs: number;
  /** SIGTERM closes a kept-alive connection under its client once idle this long (graceful-close.ts). */
  readonly shutdownIdleCloseMs: number;
  /** How long a verified API key is trusted from memory at most; 0 reads it on every request (verified-keys.ts). */
  readonly apiKeyCacheMs: number;
  /**
   * Fastify's trustProxy: whether (and which) X-Forwarded-For hops to believe for the client
   * address. Behind a reverse proxy, without it every per-address limit sees the proxy's one
   * address and becomes global. `true`, a hop count, or a comma list of proxy addresses/CIDRs.
   */
  readonly trustProxy: boolean | number | string[];
  /** Failed authentications allowed per client address and minute under /api/vendor (CONTRACT 8). */
  readonly authFailuresPerMinute: number;
  /**
   * Requests per minute per client address, and per client_id, at the OAuth endpoints. Generous:
   * one client server refreshes tokens for all its vendors from one address, and guessing
   * 256-bit secrets is hopeless anyway; the limit bounds the database work a flood can cause.
   */
  readonly oauthRateLimitPerMinute: number;
  /** `/signup` lets a shop create its vendor account (CONTRACT 9). */
  readonly signupEnabled: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /** `--role api`: how many API processes share PORT (node:cluster); 1 = this process alone. */
  readonly apiProcesses: number;
  /** The worker role's own HTTP port (/health, /ready, /metrics); the API keeps PORT. */
  readonly workerPort: number;
  /** PostgreSQL refusing connections at start is retried (with back-off) this long before exit 1. */
  readonly databaseStartTimeoutMs: number;
  /** PostgreSQL: waiting for a connection, and for a statement's answer, before answering 503. */
  readonly dbConnectTimeoutMs: number;
  readonly dbQueryTimeoutMs: number;
  /**
   * `smtp://` or `smtps://` with credentials in the URL; unset, each mail is written as an .eml
   * file under DATA_DIR/mail/ instead (src/mail/transport.ts). Never logged.
   */
  readonly smtpUrl: string | undefined;
  /** The From address of every mail (`Name <address>` or an address); shops' mail shows the shop's name. */
  readonly mailFrom: string;
  /**
   * The product's name as a shop's people and customers read it (PRODUCT_NAME, default "Atelier
   * Desk"): page titles, account mail, the mail footer. The service's internal name never shows.
   */
  readonly productName: string;
  /** Waits between a mail's attempts; the last repeats until the mail is three days old. */
  readonly mailRetryDelaysMs: readonly number[];
  /**
   * A shop's mail budget (CONTRACT 12, src/mail/budget.ts): mails to addresses of its choosing
   * (its customers, people it invites) per hour and per day; a new shop (for `newShopDays` after
   * it was made) gets the lower `new*` values. Mail past the budget is held, never refused, and
   * dropped unsent after `heldMaxHours`.
   */
  readonly mailBudget: {
    readonly hour: number;
    readonly day: number;
    readonly newHour: number;
    readonly newDay: number;
    readonly newShopDays: number;
    readonly heldMaxHours: number;
  };
  /** Sign-up mails per hour to one e-mail address, and from one client address. */
  readonly signupMailsPerAddress: number;
  readonly signupMailsPerClient: number;
  /** PostgreSQL: connections in each process's pool (plus one LISTEN connection per process). */
  readonly databasePoolSize: number;
  /** PGlite: free bytes under DATA_DIR below which writes are refused with 503; 0 never refuses. */
  readonly diskMinFreeBytes: number;
  /**
   * Where photos are stored (CONTRACT 12, src/storage/): `file:` (a directory under DATA_DIR, the
   * default) or `s3://<bucket>?endpoint=<url>&region=<r>&forcePathStyle=true`.
   */
  readonly storageUrl: string;
  /** The S3 store's credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY); never logged. */
  readonly s3Credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  /** A shop's photo storage in bytes (PHOTO_QUOTA_MB, default 1 GiB): past it, 409 storage_quota_exceeded. */
  readonly photoQuotaBytes: number;
}

/**
 * The worker's probe port unless WORKER_PORT says otherwise. A worker finding it taken (another
 * worker on this host) serves its probes on any free port and logs which; any other port taken
 * is an operator's error.
 */
export const DEFAULT_WORKER_PORT = 3001;

/**
 * The default webhook retry schedule (CONTRACT 12, "as Stripe's"): 9 retries after 1 min, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h, so a delivery's last attempt comes about three
 * days (71.6 h, up to 10% jitter more) after its first, and a receiver down over a weekend still
 * gets it. docs/guides/webhooks.md prints this table.
 */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 72_000_000,
];

/** The product's name when PRODUCT_NAME is unset: neutral, no shop's and not the service's own. */
export const DEFAULT_PRODUCT_NAME = "Atelier Desk";

export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(
  env: Env = process.env,
  overrides: Partial<Config> = {},
  terminal: { stdoutIsTTY: boolean } = { stdoutIsTTY: process.stdout.isTTY === true },
): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error("protocol");
      return raw;
    } catch {
      problems.push(`${name} must be a ${protocols.join(" or ")} URL`);
      return undefined;
    }
  };

  const nodeEnv = env.NODE_ENV ?? "development";
  if (!["development", "production", "test"].includes(nodeEnv)) {
    problems.push(`NODE_ENV must be development, production or test (got "${nodeEnv}")`);
  }
  const port = int("PORT", 3000, 0, 65535);
  const host = env.HOST || "127.0.0.1";
  const givenPublicUrl = url("PUBLIC_URL", ["http:", "https:"])?.replace(/\/+$/, "");
  const publicUrl = givenPublicUrl ?? `http://${hostForUrl(host)}:${port}`;
  const sessionSecret = env.SESSION_SECRET || undefined;
  if (nodeEnv === "production" && (!sessionSecret || sessionSecret.length < 32)) {
    problems.push("SESSION_SECRET must be set (at least 32 characters) when NODE_ENV=production");
  }

  const rateLimitPerMinute = int("RATE_LIMIT_PER_MINUTE", 600, 1, 1_000_000);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);

  const delaysRaw = env.WEBHOOK_RETRY_DELAYS_MS || DEFAULT_WEBHOOK_RETRY_DELAYS_MS.join(",");
  const webhookRetryDelaysMs = delaysRaw.split(",").map((s) => Number(s.trim()));
  if (webhookRetryDelaysMs.some((n) => !Number.isInteger(n) || n < 0)) {
    problems.push("WEBHOOK_RETRY_DELAYS_MS must be a comma-separated list of non-negative integers");
  }

  const mailDelaysRaw = env.MAIL_RETRY_DELAYS_MS || "10000,60000,300000,1800000,3600000";
  const mailRetryDelaysMs = mailDelaysRaw.split(",").map((s) => Number(s.trim()));
  if (mailRetryDelaysMs.some((n) => !Number.isInteger(n) || n < 0)) {
    problems.push("MAIL_RETRY_DELAYS_MS must be a comma-separated list of non-negative integers");
  }
  const productName = env.PRODUCT_NAME?.trim() || DEFAULT_PRODUCT_NAME;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (productName.length > 60 || /[<>"\u0000-\u001f\u007f]/.test(productName)) {
    problems.push("PRODUCT_NAME must be at most 60 characters, without <, >, quotes or control characters");
  }
  const mailFrom = env.MAIL_FROM?.trim() || `${productName} <no-reply@${mailDomain(publicUrl)}>`;
  if (!/^[^<>@\s]+@[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(mailFrom) || /[\r\n]/.test(mailFrom)) {
    problems.push(`MAIL_FROM must be an address or "Name <address>" (got "${mailFrom}")`);
  }

  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(", ")} (got "${raw}")`);
    return fallback;
  };
  const logLevel = oneOf("LOG_LEVEL", logLevels, nodeEnv === "test" ? "silent" : "info");
  const logFormat = oneOf(
    "LOG_FORMAT",
    ["json", "pretty"] as const,
    nodeEnv === "development" && terminal.stdoutIsTTY ? "pretty" : "json",
  );
  const databaseUrl = url("DATABASE_URL", ["postgres:", "postgresql:"]);
  const databaseDirectUrl = url("DATABASE_DIRECT_URL", ["postgres:", "postgresql:"]);
  const databasePoolMode = oneOf("DATABASE_POOL_MODE", ["session", "transaction"] as const, "session");
  if (databaseDirectUrl && !env.DATABASE_URL) problems.push("DATABASE_DIRECT_URL needs DATABASE_URL");
  if (databasePoolMode === "transaction" && !env.DATABASE_URL) {
    problems.push("DATABASE_POOL_MODE=transaction needs DATABASE_URL (PGlite has no pooler)");
  } else if (databasePoolMode === "transaction" && !env.DATABASE_DIRECT_URL) {
    // Defaulting to DATABASE_URL here would LISTEN through the pooler, which hears nothing once
    // its transaction ends: revoked API keys would be trusted for API_KEY_CACHE_SECONDS.
    problems.push(
      "DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL: PostgreSQL itself, for LISTEN and migrations",
    );
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) {
    problems.push("METRICS_TOKEN must be at least 16 characters");
  }

  const config: Config = {
    env: nodeEnv as Config["env"],
    port,
    host,
    publicUrl,
    webhookUserAgent: `vendor-api-webhooks/1.0${givenPublicUrl ? ` (+${givenPublicUrl})` : ""}`,
    databaseUrl,
    databaseDirectUrl: databaseDirectUrl ?? databaseUrl,
    databasePoolMode,
    dataDir: path.resolve(env.DATA_DIR || "./data"),
    logLevel,
    logFormat,
    sessionSecret,
    signInFailuresPerAddress: int("SIGN_IN_FAILURES_PER_ADDRESS", 20, 1, 1_000_000),
    signInFailuresPerAccount: int("SIGN_IN_FAILURES_PER_ACCOUNT", 5, 1, 1_000_000),
    signInRateLimitPerMinute: int("SIGN_IN_RATE_LIMIT_PER_MINUTE", 60, 1, 1_000_000),
    dashboardRequestsPerMinute: int("DASHBOARD_REQUESTS_PER_MINUTE", 600, 1, 1_000_000),
    rateLimitPerMinute,
    redisUrl: url("REDIS_URL", ["redis:", "rediss:"]),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || "vendor-api:",
    redisWaitMs: int("REDIS_WAIT_MS", 100, 1, 60_000),
    webhookTimeoutMs: int("WEBHOOK_TIMEOUT_MS", 10_000, 1, 120_000),
    webhookRetryDelaysMs,
    webhookAllowPrivateUrls: bool("WEBHOOK_ALLOW_PRIVATE_URLS", false),
    webhookEndpointConcurrency: int("WEBHOOK_ENDPOINT_CONCURRENCY", 16, 1, 1_000),
    webhookBreakerFailures: int("WEBHOOK_BREAKER_FAILURES", 5, 1, 1_000),
    webhookBreakerCooldownMs: int("WEBHOOK_BREAKER_COOLDOWN_MS", 10_000, 1, 3_600_000),
    eventStreamHeartbeatMs: int("EVENT_STREAM_HEARTBEAT_MS", 15_000, 10, 300_000),
    eventStreamPollMs: int("EVENT_STREAM_POLL_MS", 1_000, 10, 60_000),
    eventStreamIdlePollMs: int("EVENT_STREAM_IDLE_POLL_MS", 10_000, 10, 600_000),
    eventStreamMaxPerShop: int("EVENT_STREAM_MAX_PER_SHOP", 5, 1, 1_000),
    shutdownGraceMs: int("SHUTDOWN_GRACE_MS", 10_000, 0, 120_000),
    orderSweepMs: int("ORDER_SWEEP_INTERVAL_MS", 300_000, 100, 86_400_000),
    shutdownIdleCloseMs: int("SHUTDOWN_IDLE_CLOSE_MS", 1_000, 0, 60_000),
    apiKeyCacheMs: int("API_KEY_CACHE_SECONDS", 60, 0, 3_600) * 1_000,
    trustProxy,
    authFailuresPerMinute: int("AUTH_FAILURES_PER_MINUTE", Math.min(30, rateLimitPerMinute), 1, 1_000_000),
    oauthRateLimitPerMinute: int("OAUTH_RATE_LIMIT_PER_MINUTE", 300, 1, 1_000_000),
    signupEnabled: bool("SIGNUP_ENABLED", true),
    metricsToken,
    workerPort: int("WORKER_PORT", DEFAULT_WORKER_PORT, 0, 65535),
    databaseStartTimeoutMs: int("DATABASE_START_TIMEOUT_SECONDS", 60, 0, 3_600) * 1_000,
    apiProcesses: int("API_PROCESSES", 1, 1, 64),
    dbConnectTimeoutMs: int("DB_CONNECT_TIMEOUT_MS", 3_000, 100, 600_000),
    dbQueryTimeoutMs: int("DB_QUERY_TIMEOUT_MS", 4_000, 100, 3_600_000),
    // Checked without echoing it: the URL carries the SMTP password.
    smtpUrl: secretUrl(env.SMTP_URL, "SMTP_URL", ["smtp:", "smtps:"], problems),
    mailFrom,
    productName,
    mailRetryDelaysMs,
    mailBudget: {
      hour: int("MAIL_BUDGET_HOUR", 100, 0, 1_000_000),
      day: int("MAIL_BUDGET_DAY", 1_000, 0, 10_000_000),
      newHour: int("MAIL_BUDGET_NEW_SHOP_HOUR", 10, 0, 1_000_000),
      newDay: int("MAIL_BUDGET_NEW_SHOP_DAY", 50, 0, 10_000_000),
      newShopDays: int("MAIL_BUDGET_NEW_SHOP_DAYS", 7, 0, 365),
      heldMaxHours: int("MAIL_HELD_MAX_HOURS", 72, 1, 24 * 365),
    },
    signupMailsPerAddress: int("SIGNUP_MAILS_PER_ADDRESS", 3, 0, 1_000_000),
    signupMailsPerClient: int("SIGNUP_MAILS_PER_CLIENT", 10, 0, 1_000_000),
    databasePoolSize: int("DATABASE_POOL_SIZE", 10, 1, 1_000),
    diskMinFreeBytes: int("DISK_MIN_FREE_MB", 128, 0, 1_000_000) * 1024 * 1024,
    storageUrl: storageUrl(env.STORAGE_URL, problems),
    s3Credentials: s3Credentials(env, problems),
    photoQuotaBytes: int("PHOTO_QUOTA_MB", 1024, 1, 100_000_000) * 1024 * 1024,
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** TRUST_PROXY: unset/false, true, a hop count, or a comma list of proxy addresses or CIDRs. */
function parseTrustProxy(raw: string | undefined, problems: string[]): boolean | number | string[] {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const list = raw.split(",").map((s) => s.trim());
  if (list.some((s) => !/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(s))) {
    problems.push(
      `TRUST_PROXY must be true, false, a hop count or a comma list of addresses/CIDRs (got "${raw}")`,
    );
    return false;
  }
  return list;
}

/**
 * STORAGE_URL (CONTRACT 12): `file:` (DATA_DIR/blobs, the default) or
 * `s3://<bucket>?endpoint=<url>&region=<r>&forcePathStyle=true`. Its text holds no secret (the S3
 * keys come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), so it may be echoed.
 */
function storageUrl(raw: string | undefined, problems: string[]): string {
  if (raw === undefined || raw === "" || raw === "file:") return "file:";
  try {
    const parsed = new URL(raw);
    if (parsed.protocol === "s3:" && parsed.hostname !== "") {
      const endpoint = parsed.searchParams.get("endpoint");
      if (endpoint !== null && !/^https?:$/.test(new URL(endpoint).protocol)) throw new Error("endpoint");
      return raw;
    }
  } catch {}
  problems.push(
    `STORAGE_URL must be file: or s3://<bucket>?endpoint=<url>&region=<region>&forcePathStyle=true (got "${raw}")`,
  );
  return "file:";
}

function s3Credentials(env: Env, problems: string[]): Config["s3Credentials"] {
  const accessKeyId = env.AWS_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY || undefined;
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    problems.push("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set together or not at all");
    return undefined;
  }
  return { accessKeyId, secretAccessKey };
}

/** A URL whose text must never reach a message (it holds credentials). */
function secretUrl(raw: string | undefined, name: string, protocols: string[], problems: string[]) {
  if (raw === undefined || raw === "") return undefined;
  try {
    if (protocols.includes(new URL(raw).protocol)) return raw;
  } catch {}
  problems.push(`${name} must be a ${protocols.join(" or ")} URL`);
  return undefined;
}

/** The default sender's domain: PUBLIC_URL's host name, or localhost for a bare address. */
function mailDomain(publicUrl: string): string {
  const host = new URL(publicUrl).hostname;
  return /[a-z]/i.test(host) && !host.includes(":") ? host : "localhost";
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * `vendor-api listen`'s API key from the environment (CONTRACT 12: `VENDOR_API_KEY` when no
 * `--api-key` is given), so it need not be on the command line, where `ps` shows it to every user
 * of the machine. listen reads no other setting: it is an HTTP client, with no configuration.
 */
export function listenKeyFromEnvironment(env: Env = process.env): string | undefined {
  const key = env.VENDOR_API_KEY?.trim();
  return key ? key : undefined;
}
