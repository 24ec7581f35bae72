// Runs through a transaction pooler: .ci/run's PgBouncer step sets TEST_DATABASE_URL
// to the pooler, TEST_DATABASE_DIRECT_URL to PostgreSQL itself and TEST_DATABASE_POOL_MODE to
// `transaction`. Every database a test opens or a child process is given then goes through the
// pooler, with its direct twin (the same database on the direct server) for LISTEN, migrations
// and administration (CREATE and DROP DATABASE). Without those variables nothing changes.
import type { DbTarget } from "../../src/db/client.ts";

const direct = process.env.TEST_DATABASE_DIRECT_URL || undefined;
const poolMode = process.env.TEST_DATABASE_POOL_MODE === "transaction" ? "transaction" : undefined;

/** Whether this run's PostgreSQL is reached through a transaction pooler. */
export const throughPooler = Boolean(direct && poolMode);

/** The same database as `url`, on PostgreSQL itself (url itself when there is no pooler). */
export function directUrlOf(url: string): string {
  if (!direct) return url;
  const server = new URL(direct);
  const twin = new URL(url);
  twin.host = server.host;
  twin.username = server.username;
  twin.password = server.password;
  return twin.toString();
}

/** How the app opens `url` in this run. */
export function pgTarget(url: string): DbTarget {
  return throughPooler ? { kind: "pg", url, directUrl: directUrlOf(url), poolMode } : { kind: "pg", url };
}

/** A child's environment with, when it names DATABASE_URL, the pooler's settings beside it. */
export function withPoolerSettings<T extends Record<string, string | undefined>>(env: T): T {
  if (!throughPooler || !env.DATABASE_URL || env.DATABASE_DIRECT_URL) return env;
  return {
    ...env,
    DATABASE_DIRECT_URL: directUrlOf(env.DATABASE_URL),
    DATABASE_POOL_MODE: poolMode,
  };
}
