import type { Config } from "./config.ts";
import type { Database, Db } from "./db/client.ts";
import type { Resolver } from "./events/url-guard.ts";

/** What services need: the database and a clock (tests and the dispatcher share one notion of now). */
export interface ServiceContext {
  readonly db: Db;
  readonly now: () => Date;
}

/** Everything the HTTP app is built from; main.ts and the test helper both assemble one. */
export interface AppDeps {
  readonly config: Config;
  readonly database: Database;
  readonly now?: () => Date;
  /** DNS for webhook URLs; tests pass a stub so no traffic leaves the machine. */
  readonly resolver?: Resolver;
}

export function serviceContext(deps: AppDeps): ServiceContext {
  return { db: deps.database.db, now: deps.now ?? (() => new Date()) };
}
