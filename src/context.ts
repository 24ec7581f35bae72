import type { Config } from "./config.ts";
import type { Database, Db } from "./db/client.ts";
import { heldTransaction } from "./db/request-transaction.ts";
import type { Metrics } from "./metrics/registry.ts";
import { type BlobStore, blobStoreFor } from "./storage/blob-store.ts";
import type { Resolver } from "./webhook-delivery/url-guard.ts";

/**
 * What services need: the database and a clock (tests and the dispatcher share one notion of now).
 * `db` is the transaction the HTTP layer holds for the current request when it holds one (see
 * db/request-transaction.ts: an Idempotency-Key answer commits with the change), else the database.
 */
export interface ServiceContext {
  readonly db: Db;
  readonly now: () => Date;
  /** Where photos are kept (STORAGE_URL); contexts made by hand for one job may have none. */
  readonly blobs?: BlobStore;
}

/** Everything the HTTP app is built from; main.ts and the test helper both assemble one. */
export interface AppDeps {
  readonly config: Config;
  readonly database: Database;
  readonly now?: () => Date;
  /** DNS for webhook URLs; tests pass a stub so no traffic leaves the machine. */
  readonly resolver?: Resolver;
  /** Where the log goes (default stdout); tests capture it to search it for secrets. */
  readonly logStream?: { write(line: string): void };
  /** One registry per process; buildApp makes one when none is given. */
  readonly metrics?: Metrics;
}

export function serviceContext(deps: AppDeps): ServiceContext {
  const db = deps.database.db;
  return {
    get db() {
      return (heldTransaction() as Db | undefined) ?? db;
    },
    now: deps.now ?? (() => new Date()),
    blobs: blobStoreFor(deps.config),
  };
}
