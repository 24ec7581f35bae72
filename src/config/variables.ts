// Every environment variable the service reads, declared once: its rule, its default, one line of
// help, and whether its value is a secret. src/config.ts reads them all through readVariables()
// and builds the Config from the values; `npm run config:docs` (scripts/config-docs.ts) writes the
// README's table and .env.example from this list, and test/ops/config.test.ts fails when either
// differs. A new setting is one entry here and one field in src/config.ts.
//
// The rules for an entry:
//   - `default` is the text an unset or empty variable reads as; it must pass the rule.
//   - `derived` instead words a default computed from other settings (src/config.ts computes it).
//   - `example` is a value to uncomment in .env.example in place of the default: only for settings
//     whose useful value names a server of one's own (a database, Redis, SMTP) or a derived one.
//   - `secret` values are never quoted back in an error, and the documents say so.
//   - `help` is Markdown, one line: the README's "Meaning", wrapped into .env.example's comment.
import {
  DEFAULT_PRODUCT_NAME,
  DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
  DEFAULT_WORKER_PORT,
  logLevels,
} from "./defaults.ts";
import {
  boolean,
  delayList,
  directory,
  displayName,
  integer,
  mailbox,
  oneOf,
  Refusal,
  type Rule,
  storageUrl,
  text,
  trustProxy,
  url,
} from "./rules.ts";

/** The sections of .env.example, in order; the README's table follows the same order. */
export const groups = [
  "Where it runs",
  "Database",
  "Logs and metrics",
  "Accounts and API keys",
  "Rate limits",
  "Mail",
  "Webhooks and the event stream",
  "Orders and photos",
  "vendor-api listen (the CLI)",
] as const;

export interface Variable<T = unknown> {
  readonly group: (typeof groups)[number];
  readonly rule: Rule<T>;
  readonly default?: string;
  readonly derived?: string;
  readonly example?: string;
  readonly secret?: boolean;
  /** An empty value is refused instead of read as unset (NODE_ENV= is a mistake, not a choice). */
  readonly emptyIsRefused?: boolean;
  readonly help: string;
}

const MILLION = 1_000_000;
const postgres = ["postgres:", "postgresql:"];

export const variables = {
  // --- Where it runs
  NODE_ENV: {
    group: "Where it runs",
    rule: oneOf(["development", "production", "test"], "development, production or test"),
    default: "development",
    emptyIsRefused: true,
    help: "`production` enables secure cookies, https-only public webhooks, and requires `SESSION_SECRET`",
  },
  HOST: {
    group: "Where it runs",
    rule: text("host name or address"),
    default: "127.0.0.1",
    help: "Interface to listen on (`0.0.0.0` in a container)",
  },
  PORT: {
    group: "Where it runs",
    rule: integer(0, 65535),
    default: "3000",
    help: "The API's HTTP port",
  },
  PUBLIC_URL: {
    group: "Where it runs",
    rule: url(["http:", "https:"], (given) => given.replace(/\/+$/, "")),
    derived: "`http://HOST:PORT`",
    example: "http://127.0.0.1:3000",
    help: "External base URL: problem `type` links, the OAuth issuer, links in mail; webhooks' `User-Agent` names it",
  },
  TRUST_PROXY: {
    group: "Where it runs",
    rule: trustProxy(),
    default: "false",
    help:
      "Behind reverse proxies, so per-address limits see the client's address (from `X-Forwarded-For`), not the proxy's. " +
      "Best: the proxies' addresses or CIDRs, `TRUST_PROXY=10.0.0.5,10.1.0.0/16` (only what they add is believed). " +
      "Or their number, `TRUST_PROXY=2` (the last 2 hops are believed whoever sent them: only when nothing reaches the server except through them). " +
      "`true` believes any `X-Forwarded-For`, so a client picks its own address and dodges every per-address limit; the server warns at start",
  },
  WORKER_PORT: {
    group: "Where it runs",
    rule: integer(0, 65535),
    default: String(DEFAULT_WORKER_PORT),
    help:
      "`--role worker`: the port of its `/health`, `/ready` and `/metrics`. If 3001 is taken (a second worker on the host), " +
      'the worker takes any free port and logs it (`probesPort` in its "vendor-api started" line); any other port taken, it refuses to start',
  },
  API_PROCESSES: {
    group: "Where it runs",
    rule: integer(1, 64),
    default: "1",
    help:
      "`--role api` only (PostgreSQL): start this many API processes sharing `PORT` in one command (node:cluster); " +
      "run the dispatcher apart with `--role worker`. One per core is the ceiling; see `bench/README.md` for the scaling model",
  },
  SESSION_SECRET: {
    group: "Where it runs",
    rule: text("text, ≥ 32 characters in production"),
    secret: true,
    help:
      "Signs the dashboard's cookies and CSRF tokens; required in production (≥ 32 characters). Also seals members' two-step (TOTP) secrets: " +
      "changing it makes them unreadable, and members then sign in with a recovery code and set two-step sign-in up again",
  },
  SHUTDOWN_GRACE_MS: {
    group: "Where it runs",
    rule: integer(0, 120_000),
    default: "10000",
    help: "How long SIGTERM waits for in-flight work",
  },
  SHUTDOWN_IDLE_CLOSE_MS: {
    group: "Where it runs",
    rule: integer(0, 60_000),
    default: "1000",
    help:
      "During that wait, a kept-alive connection is closed once idle this long; " +
      "a client still using it gets 503 with `Connection: close` instead",
  },

  // --- Database
  DATABASE_URL: {
    group: "Database",
    rule: url(postgres),
    example: "postgres://user:password@127.0.0.1:5432/vendor_api",
    secret: true,
    help:
      "`postgres://…` selects PostgreSQL; without it the embedded PGlite is used. " +
      "May name a transaction pooler with `DATABASE_POOL_MODE=transaction`",
  },
  DATABASE_DIRECT_URL: {
    group: "Database",
    rule: url(postgres),
    derived: "`DATABASE_URL`",
    secret: true,
    help:
      "PostgreSQL itself, never a transaction pooler: LISTEN (webhook wake-ups, API-key revocations), migrations and their advisory lock. " +
      "Required with `DATABASE_POOL_MODE=transaction`",
  },
  DATABASE_POOL_MODE: {
    group: "Database",
    rule: oneOf(["session", "transaction"]),
    default: "session",
    help:
      "`transaction` when `DATABASE_URL` is a transaction pooler (PgBouncer `pool_mode = transaction`): no named prepared statements, " +
      "no session settings ([Behind a connection pooler](docs/operating.md#behind-a-connection-pooler))",
  },
  DATABASE_POOL_SIZE: {
    group: "Database",
    rule: integer(1, 1_000),
    default: "10",
    help:
      "PostgreSQL: connections in each process's pool; every process holds one more for LISTEN " +
      "(see [Connections to PostgreSQL](docs/operating.md#connections-to-postgresql))",
  },
  DB_CONNECT_TIMEOUT_MS: {
    group: "Database",
    rule: integer(100, 600_000),
    default: "3000",
    help: "PostgreSQL: longest wait for a pooled or new connection before answering 503",
  },
  DB_QUERY_TIMEOUT_MS: {
    group: "Database",
    rule: integer(100, 3_600_000),
    default: "4000",
    help:
      "PostgreSQL: longest silence from the server while a statement waits for its answer (client side, noticed within an eighth of it, " +
      "500 ms at most; the connection is then dropped), and `statement_timeout`, before answering 503",
  },
  DATABASE_START_TIMEOUT_SECONDS: {
    group: "Database",
    rule: integer(0, 3_600),
    default: "60",
    help: "PostgreSQL refusing or unreachable at start: retried with a growing wait (one line on stderr each), then exit 1; `0` gives up at once",
  },
  DATA_DIR: {
    group: "Database",
    rule: directory(),
    default: "./data",
    help: "PGlite's data directory (locked by one process at a time); also where mail files and `file:` photos go",
  },
  DISK_MIN_FREE_MB: {
    group: "Database",
    rule: integer(0, MILLION),
    default: "128",
    help:
      "PGlite: below this much free space under `DATA_DIR`, writes answer 503 " +
      "(see [When something fails](docs/operating.md#when-something-fails)); `0` never refuses",
  },

  // --- Logs and metrics
  LOG_LEVEL: {
    group: "Logs and metrics",
    rule: oneOf(logLevels),
    derived: "`info` (`silent` with `NODE_ENV=test`)",
    help: "Logs carry the request id and the caller's vendor and credential ids, never a credential",
  },
  LOG_FORMAT: {
    group: "Logs and metrics",
    rule: oneOf(["json", "pretty"]),
    derived: "`pretty` on a terminal in development, else `json`",
    help: "`json` lines for machines, or `pretty` (pino-pretty) for a person reading",
  },
  METRICS_TOKEN: {
    group: "Logs and metrics",
    rule: text("text, ≥ 16 characters", { min: 16 }),
    secret: true,
    help: "When set, `GET /metrics` needs `Authorization: Bearer <token>`",
  },

  // --- Accounts and API keys
  SIGNUP_ENABLED: {
    group: "Accounts and API keys",
    rule: boolean(),
    default: "true",
    help: "`/signup` lets a shop create its own vendor account",
  },
  SIGNUP_MAILS_PER_ADDRESS: {
    group: "Accounts and API keys",
    rule: integer(0, MILLION),
    default: "3",
    help: "Sign-up mails per hour to one e-mail address; past it `/signup` answers the same and mails nothing",
  },
  SIGNUP_MAILS_PER_CLIENT: {
    group: "Accounts and API keys",
    rule: integer(0, MILLION),
    default: "10",
    help: "Sign-up mails per hour from one client address; past it `/signup` answers the same and mails nothing",
  },
  API_KEY_CACHE_SECONDS: {
    group: "Accounts and API keys",
    rule: integer(0, 3_600),
    default: "60",
    help:
      "How long an API process trusts a verified API key from memory at most " +
      "(revocations reach it at once by NOTIFY; `0`: read the key on every request)",
  },

  // --- Rate limits
  RATE_LIMIT_PER_MINUTE: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    default: "600",
    help: "Requests per minute per credential (API key or OAuth grant, counted once it authenticated)",
  },
  AUTH_FAILURES_PER_MINUTE: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    derived: "smaller of `30` and `RATE_LIMIT_PER_MINUTE`",
    help:
      "Failed authentications per client address (API credentials under `/api/vendor`, OAuth client authentication); " +
      "past it a failing credential gets 429, a valid one is still served",
  },
  OAUTH_RATE_LIMIT_PER_MINUTE: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    default: "300",
    help: "Requests per minute per client address at the token, revocation and authorization endpoints",
  },
  SIGN_IN_RATE_LIMIT_PER_MINUTE: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    default: "60",
    help: "Requests per minute per client address to the sign-in pages",
  },
  DASHBOARD_REQUESTS_PER_MINUTE: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    default: "600",
    help: "Requests per minute per client address to the dashboard's pages and assets",
  },
  SIGN_IN_FAILURES_PER_ADDRESS: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    default: "20",
    help: "Failed sign-ins per address per 15 minutes before refusing",
  },
  SIGN_IN_FAILURES_PER_ACCOUNT: {
    group: "Rate limits",
    rule: integer(1, MILLION),
    default: "5",
    help:
      "Failed sign-ins per account *from one address* per 15 minutes before refusing that address (a stranger cannot lock a vendor out); " +
      "wrong two-step codes and wrong current passwords on the account page count too, each counted before it is checked. " +
      "A pending sign-in takes at most 5 codes from any addresses, then asks for the password again",
  },
  REDIS_URL: {
    group: "Rate limits",
    rule: url(["redis:", "rediss:"]),
    example: "redis://127.0.0.1:6379",
    secret: true,
    help: "Share rate-limit budgets across processes and instances",
  },
  REDIS_KEY_PREFIX: {
    group: "Rate limits",
    rule: text("text"),
    default: "vendor-api:",
    help: "Prefix of every key in Redis, so deployments (or test runs) sharing one Redis never collide",
  },
  REDIS_WAIT_MS: {
    group: "Rate limits",
    rule: integer(1, 60_000),
    default: "100",
    help:
      "Longest wait for Redis's count; past it (or with Redis down) each process counts in memory, with headers, " +
      '`/ready` answers `{"status":"degraded"}` and the log says "Redis unreachable" once, then "Redis back". ' +
      "Without Redis, `API_PROCESSES` share one budget through the primary process. " +
      "Guesses at a secret (sign-in, two-step codes, current password) fail closed instead: " +
      "one Redis has not counted within 10 × this wait is refused with 503 and `Retry-After`, unchecked",
  },

  // --- Mail
  SMTP_URL: {
    group: "Mail",
    rule: url(["smtp:", "smtps:"]),
    example: "smtps://user:password@smtp.example.com:465",
    secret: true,
    help:
      "`smtp://user:password@host:587` or `smtps://…:465` (credentials in the URL); " +
      "without it every mail is written as an `.eml` file under `DATA_DIR/mail/` and its path logged",
  },
  PRODUCT_NAME: {
    group: "Mail",
    rule: displayName(60),
    default: DEFAULT_PRODUCT_NAME,
    help:
      "The product's name as shops and their customers read it (page titles, account mail, the mail footer); " +
      "the service's internal name never shows",
  },
  MAIL_FROM: {
    group: "Mail",
    rule: mailbox(),
    derived: "`PRODUCT_NAME <no-reply@` host of `PUBLIC_URL`, `localhost` for an IP`>`",
    example: "no-reply@localhost",
    help: "The From address of every mail; a shop's mail carries the shop's name as the sender's name",
  },
  MAIL_RETRY_DELAYS_MS: {
    group: "Mail",
    rule: delayList(),
    default: "10000,60000,300000,1800000,3600000",
    help: "Waits between a mail's attempts; the last repeats until the mail is three days old (an SMTP outage delays mail, loses none)",
  },
  MAIL_BUDGET_HOUR: {
    group: "Mail",
    rule: integer(0, MILLION),
    default: "100",
    help:
      "A shop's mail to addresses of its choosing (customer mail, invitations) per hour; past it mail is held " +
      "(shown on the shop's Settings and in `/metrics` as `vendor_api_mail_held`), never refused, and sent when the budget allows",
  },
  MAIL_BUDGET_DAY: {
    group: "Mail",
    rule: integer(0, 10 * MILLION),
    default: "1000",
    help: "The same, per day",
  },
  MAIL_BUDGET_NEW_SHOP_HOUR: {
    group: "Mail",
    rule: integer(0, MILLION),
    default: "10",
    help: "The hourly budget of a shop in its first `MAIL_BUDGET_NEW_SHOP_DAYS` days",
  },
  MAIL_BUDGET_NEW_SHOP_DAY: {
    group: "Mail",
    rule: integer(0, 10 * MILLION),
    default: "50",
    help: "The daily budget of a shop in its first `MAIL_BUDGET_NEW_SHOP_DAYS` days",
  },
  MAIL_BUDGET_NEW_SHOP_DAYS: {
    group: "Mail",
    rule: integer(0, 365),
    default: "7",
    help: "How long a shop counts as new; a shop whose e-mail is not confirmed sends none",
  },
  MAIL_HELD_MAX_HOURS: {
    group: "Mail",
    rule: integer(1, 24 * 365),
    default: "72",
    help: "A held mail still held after this long is dropped unsent (Settings says why)",
  },

  // --- Webhooks and the event stream
  WEBHOOK_TIMEOUT_MS: {
    group: "Webhooks and the event stream",
    rule: integer(1, 120_000),
    default: "10000",
    help: "Delivery timeout",
  },
  WEBHOOK_RETRY_DELAYS_MS: {
    group: "Webhooks and the event stream",
    rule: delayList(),
    default: DEFAULT_WEBHOOK_RETRY_DELAYS_MS.join(","),
    help: "Retry delays (about three days); the list's length is the retry count",
  },
  WEBHOOK_ALLOW_PRIVATE_URLS: {
    group: "Webhooks and the event stream",
    rule: boolean(),
    default: "false",
    help: "Allow webhook URLs on private/loopback addresses (development and tests)",
  },
  WEBHOOK_ENDPOINT_CONCURRENCY: {
    group: "Webhooks and the event stream",
    rule: integer(1, 1_000),
    default: "16",
    help: "Deliveries in flight at once to one endpoint, across dispatchers (fairness)",
  },
  WEBHOOK_BREAKER_FAILURES: {
    group: "Webhooks and the event stream",
    rule: integer(1, 1_000),
    default: "5",
    help: "Failures in a row (timeout, connection error, 5xx, 429) that open an endpoint's circuit",
  },
  WEBHOOK_BREAKER_COOLDOWN_MS: {
    group: "Webhooks and the event stream",
    rule: integer(1, 3_600_000),
    default: "10000",
    help: "Shortest open period; it grows with the outage (at most 1 h), then one probe",
  },
  EVENT_STREAM_HEARTBEAT_MS: {
    group: "Webhooks and the event stream",
    rule: integer(10, 300_000),
    default: "15000",
    help: "The event stream's (`GET /api/vendor/events/stream`) comment heartbeat",
  },
  EVENT_STREAM_POLL_MS: {
    group: "Webhooks and the event stream",
    rule: integer(10, 60_000),
    default: "1000",
    help: "How soon a woken event stream looks again while an older transaction holds its events back",
  },
  EVENT_STREAM_IDLE_POLL_MS: {
    group: "Webhooks and the event stream",
    rule: integer(10, 600_000),
    default: "10000",
    help: "An idle event stream's fallback look for events, for a NOTIFY lost on its way (a NOTIFY wakes it sooner)",
  },
  EVENT_STREAM_MAX_PER_SHOP: {
    group: "Webhooks and the event stream",
    rule: integer(1, 1_000),
    default: "5",
    help: "Open event streams per shop and API process (429 beyond)",
  },

  // --- Orders and photos
  ORDER_SWEEP_INTERVAL_MS: {
    group: "Orders and photos",
    rule: integer(100, 86_400_000),
    default: "300000",
    help:
      "How often a worker looks for orders at risk of missing the wedding, overdue rentals and due-back reminders " +
      "(each happens once across workers: `order_alerts`)",
  },
  STORAGE_URL: {
    group: "Orders and photos",
    rule: storageUrl(),
    default: "file:",
    help: "Where photos go: `file:` is `DATA_DIR/blobs`; `s3://…` any S3-compatible store, with `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`",
  },
  AWS_ACCESS_KEY_ID: {
    group: "Orders and photos",
    rule: text("text"),
    secret: true,
    help: "The S3 store's access key; set together with `AWS_SECRET_ACCESS_KEY` or not at all",
  },
  AWS_SECRET_ACCESS_KEY: {
    group: "Orders and photos",
    rule: text("text"),
    secret: true,
    help: "The S3 store's secret key; set together with `AWS_ACCESS_KEY_ID` or not at all",
  },
  PHOTO_QUOTA_MB: {
    group: "Orders and photos",
    rule: integer(1, 100 * MILLION),
    default: "1024",
    help: "A shop's photo storage; past it uploads answer `409 storage_quota_exceeded`",
  },

  // --- vendor-api listen (the CLI)
  VENDOR_API_KEY: {
    group: "vendor-api listen (the CLI)",
    rule: text("API key", { trim: true }),
    secret: true,
    help: "`vendor-api listen`'s API key when no `--api-key` is given (the command line shows in `ps`; this does not). The server ignores it",
  },
} satisfies Record<string, Variable>;

export type VariableName = keyof typeof variables;

/** What each variable reads as: its rule's type, or undefined when unset without a default. */
export type Values = {
  readonly [K in VariableName]: (typeof variables)[K] extends { rule: Rule<infer T>; default: string }
    ? T
    : (typeof variables)[K] extends Variable<infer T>
      ? T | undefined
      : never;
};

type Env = Record<string, string | undefined>;

/**
 * Reads one variable: unset or empty is its default (or undefined), anything else must pass its
 * rule. A refused text is reported in `problems` and reads as the default, so that every other
 * variable is still checked and all problems are reported at once.
 */
export function readVariable<K extends VariableName>(env: Env, name: K, problems: string[] = []): Values[K] {
  const variable: Variable = variables[name];
  const given = variable.rule.trim ? env[name]?.trim() : env[name];
  const unset = given === undefined || (given === "" && !variable.emptyIsRefused);
  const text = unset ? variable.default : given;
  if (text === undefined) return undefined as Values[K];
  const value = variable.rule.parse(text);
  if (!(value instanceof Refusal)) return value as Values[K];
  const quoted = value.echo && !variable.secret ? ` (got "${text}")` : "";
  problems.push(`${name} ${value.must}${quoted}`);
  return (variable.default === undefined ? undefined : variable.rule.parse(variable.default)) as Values[K];
}

/** Every variable at once, each refused text a line of `problems`. */
export function readVariables(env: Env): { values: Values; problems: string[] } {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(variables) as VariableName[])
    values[name] = readVariable(env, name, problems);
  return { values: values as Values, problems };
}
