// The only module that reads process.env: every setting is declared in src/config/variables.ts
// (rule, default, help), read here, every invalid variable reported at once, and the result is a
// frozen object passed down explicitly.
import type { LogLevel } from "./config/defaults.ts";
import { readVariable, readVariables, type Values, type VariableName } from "./config/variables.ts";

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

export {
  DEFAULT_PRODUCT_NAME,
  DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
  DEFAULT_WORKER_PORT,
  type LogLevel,
  logLevels,
} from "./config/defaults.ts";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/**
 * The Config from the environment: every variable read by its declaration (src/config/variables.ts),
 * then the defaults computed from other settings and the rules between variables. Every problem is
 * reported at once, in one ConfigError.
 */
export function loadConfig(
  env: Env = process.env,
  overrides: Partial<Config> = {},
  terminal: { stdoutIsTTY: boolean } = { stdoutIsTTY: process.stdout.isTTY === true },
): Config {
  const { values: v, problems } = readVariables(env);
  problems.push(...relationProblems(v, (name) => Boolean(env[name])));
  const publicUrl = v.PUBLIC_URL ?? `http://${hostForUrl(v.HOST)}:${v.PORT}`;
  const config: Config = {
    env: v.NODE_ENV,
    port: v.PORT,
    host: v.HOST,
    publicUrl,
    webhookUserAgent: `vendor-api-webhooks/1.0${v.PUBLIC_URL ? ` (+${v.PUBLIC_URL})` : ""}`,
    databaseUrl: v.DATABASE_URL,
    databaseDirectUrl: v.DATABASE_DIRECT_URL ?? v.DATABASE_URL,
    databasePoolMode: v.DATABASE_POOL_MODE,
    dataDir: v.DATA_DIR,
    logLevel: v.LOG_LEVEL ?? (v.NODE_ENV === "test" ? "silent" : "info"),
    logFormat: v.LOG_FORMAT ?? (v.NODE_ENV === "development" && terminal.stdoutIsTTY ? "pretty" : "json"),
    sessionSecret: v.SESSION_SECRET,
    signInFailuresPerAddress: v.SIGN_IN_FAILURES_PER_ADDRESS,
    signInFailuresPerAccount: v.SIGN_IN_FAILURES_PER_ACCOUNT,
    signInRateLimitPerMinute: v.SIGN_IN_RATE_LIMIT_PER_MINUTE,
    dashboardRequestsPerMinute: v.DASHBOARD_REQUESTS_PER_MINUTE,
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    redisUrl: v.REDIS_URL,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    redisWaitMs: v.REDIS_WAIT_MS,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    webhookRetryDelaysMs: v.WEBHOOK_RETRY_DELAYS_MS,
    webhookAllowPrivateUrls: v.WEBHOOK_ALLOW_PRIVATE_URLS,
    webhookEndpointConcurrency: v.WEBHOOK_ENDPOINT_CONCURRENCY,
    webhookBreakerFailures: v.WEBHOOK_BREAKER_FAILURES,
    webhookBreakerCooldownMs: v.WEBHOOK_BREAKER_COOLDOWN_MS,
    eventStreamHeartbeatMs: v.EVENT_STREAM_HEARTBEAT_MS,
    eventStreamPollMs: v.EVENT_STREAM_POLL_MS,
    eventStreamIdlePollMs: v.EVENT_STREAM_IDLE_POLL_MS,
    eventStreamMaxPerShop: v.EVENT_STREAM_MAX_PER_SHOP,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    orderSweepMs: v.ORDER_SWEEP_INTERVAL_MS,
    shutdownIdleCloseMs: v.SHUTDOWN_IDLE_CLOSE_MS,
    apiKeyCacheMs: v.API_KEY_CACHE_SECONDS * 1_000,
    trustProxy: v.TRUST_PROXY,
    authFailuresPerMinute: v.AUTH_FAILURES_PER_MINUTE ?? Math.min(30, v.RATE_LIMIT_PER_MINUTE),
    oauthRateLimitPerMinute: v.OAUTH_RATE_LIMIT_PER_MINUTE,
    signupEnabled: v.SIGNUP_ENABLED,
    metricsToken: v.METRICS_TOKEN,
    workerPort: v.WORKER_PORT,
    databaseStartTimeoutMs: v.DATABASE_START_TIMEOUT_SECONDS * 1_000,
    apiProcesses: v.API_PROCESSES,
    dbConnectTimeoutMs: v.DB_CONNECT_TIMEOUT_MS,
    dbQueryTimeoutMs: v.DB_QUERY_TIMEOUT_MS,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM ?? `${v.PRODUCT_NAME} <no-reply@${mailDomain(publicUrl)}>`,
    productName: v.PRODUCT_NAME,
    mailRetryDelaysMs: v.MAIL_RETRY_DELAYS_MS,
    mailBudget: {
      hour: v.MAIL_BUDGET_HOUR,
      day: v.MAIL_BUDGET_DAY,
      newHour: v.MAIL_BUDGET_NEW_SHOP_HOUR,
      newDay: v.MAIL_BUDGET_NEW_SHOP_DAY,
      newShopDays: v.MAIL_BUDGET_NEW_SHOP_DAYS,
      heldMaxHours: v.MAIL_HELD_MAX_HOURS,
    },
    signupMailsPerAddress: v.SIGNUP_MAILS_PER_ADDRESS,
    signupMailsPerClient: v.SIGNUP_MAILS_PER_CLIENT,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    diskMinFreeBytes: v.DISK_MIN_FREE_MB * 1024 * 1024,
    storageUrl: v.STORAGE_URL,
    s3Credentials:
      v.AWS_ACCESS_KEY_ID && v.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: v.AWS_ACCESS_KEY_ID, secretAccessKey: v.AWS_SECRET_ACCESS_KEY }
        : undefined,
    photoQuotaBytes: v.PHOTO_QUOTA_MB * 1024 * 1024,
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** The rules between variables, each a problem when broken, in the order they are reported. */
function relationProblems(v: Values, given: (name: VariableName) => boolean): string[] {
  const problems: string[] = [];
  if (v.NODE_ENV === "production" && (v.SESSION_SECRET ?? "").length < 32) {
    problems.push("SESSION_SECRET must be set (at least 32 characters) when NODE_ENV=production");
  }
  if (v.DATABASE_DIRECT_URL && !given("DATABASE_URL"))
    problems.push("DATABASE_DIRECT_URL needs DATABASE_URL");
  if (v.DATABASE_POOL_MODE === "transaction" && !given("DATABASE_URL")) {
    problems.push("DATABASE_POOL_MODE=transaction needs DATABASE_URL (PGlite has no pooler)");
  } else if (v.DATABASE_POOL_MODE === "transaction" && !given("DATABASE_DIRECT_URL")) {
    // Defaulting to DATABASE_URL here would LISTEN through the pooler, which hears nothing once
    // its transaction ends: revoked API keys would be trusted for API_KEY_CACHE_SECONDS.
    problems.push(
      "DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL: PostgreSQL itself, for LISTEN and migrations",
    );
  }
  if ((v.AWS_ACCESS_KEY_ID === undefined) !== (v.AWS_SECRET_ACCESS_KEY === undefined)) {
    problems.push("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set together or not at all");
  }
  return problems;
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
  return readVariable(env, "VENDOR_API_KEY");
}
