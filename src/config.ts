// The only module that reads process.env: every setting is parsed here, every invalid variable
// is reported at once, and the result is a frozen object passed down explicitly.
import path from "node:path";

export type Role = "all" | "api" | "worker";

export interface Config {
  readonly env: "development" | "production" | "test";
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly logLevel: string;
  readonly sessionSecret: string | undefined;
  /** Failed sign-ins allowed per client address, and per account, in 15 minutes. */
  readonly signInFailuresPerAddress: number;
  readonly signInFailuresPerAccount: number;
  /** Requests per minute per client address to the sign-in pages (CONTRACT 8: stricter). */
  readonly signInRateLimitPerMinute: number;
  readonly rateLimitPerMinute: number;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key, so deployments (or test runs) sharing one Redis never collide. */
  readonly redisKeyPrefix: string;
  readonly webhookTimeoutMs: number;
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookAllowPrivateUrls: boolean;
  readonly shutdownGraceMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
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
  const publicUrl = (url("PUBLIC_URL", ["http:", "https:"]) ?? `http://${hostForUrl(host)}:${port}`).replace(
    /\/+$/,
    "",
  );
  const sessionSecret = env.SESSION_SECRET || undefined;
  if (nodeEnv === "production" && (!sessionSecret || sessionSecret.length < 32)) {
    problems.push("SESSION_SECRET must be set (at least 32 characters) when NODE_ENV=production");
  }

  const delaysRaw = env.WEBHOOK_RETRY_DELAYS_MS || "60000,1800000,21600000";
  const webhookRetryDelaysMs = delaysRaw.split(",").map((s) => Number(s.trim()));
  if (webhookRetryDelaysMs.some((n) => !Number.isInteger(n) || n < 0)) {
    problems.push("WEBHOOK_RETRY_DELAYS_MS must be a comma-separated list of non-negative integers");
  }

  const config: Config = {
    env: nodeEnv as Config["env"],
    port,
    host,
    publicUrl,
    databaseUrl: url("DATABASE_URL", ["postgres:", "postgresql:"]),
    dataDir: path.resolve(env.DATA_DIR || "./data"),
    logLevel: env.LOG_LEVEL || (nodeEnv === "test" ? "silent" : "info"),
    sessionSecret,
    signInFailuresPerAddress: int("SIGN_IN_FAILURES_PER_ADDRESS", 20, 1, 1_000_000),
    signInFailuresPerAccount: int("SIGN_IN_FAILURES_PER_ACCOUNT", 5, 1, 1_000_000),
    signInRateLimitPerMinute: int("SIGN_IN_RATE_LIMIT_PER_MINUTE", 60, 1, 1_000_000),
    rateLimitPerMinute: int("RATE_LIMIT_PER_MINUTE", 600, 1, 1_000_000),
    redisUrl: url("REDIS_URL", ["redis:", "rediss:"]),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || "vendor-api:",
    webhookTimeoutMs: int("WEBHOOK_TIMEOUT_MS", 10_000, 1, 120_000),
    webhookRetryDelaysMs,
    webhookAllowPrivateUrls: bool("WEBHOOK_ALLOW_PRIVATE_URLS", false),
    shutdownGraceMs: int("SHUTDOWN_GRACE_MS", 10_000, 0, 120_000),
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}
