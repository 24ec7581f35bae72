// The one home of the service's periodic clean-up: deletes credentials that can no longer be used,
// so the tables hold live ones only (sessions, OAuth tokens and codes, password-reset links that
// expired or were used), activity log entries older than a year and tombstones of deletions
// older than 30 days. Runs in the worker role
// (every worker: the deletes are idempotent). Used codes and rotated refresh tokens
// are kept until they expire, because reuse detection (RFC 9700 4.14.2, CONTRACT 6) needs them.
import type { Db } from "../db/client.ts";
import { deleteExpiredCredentials } from "./housekeeping.repository.ts";

const CODE_GRACE_MS = 24 * 60 * 60 * 1000;
/** The activity log keeps a year (CONTRACT 10, "Members"). */
export const ACTIVITY_RETENTION_MS = 365 * 24 * 60 * 60 * 1000;
/** Tombstones of deletions are shown for 30 days, as long as events are kept (CONTRACT 12). */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const HOUSEKEEPING_EVERY_MS = 10 * 60 * 1000;

export async function purgeExpiredCredentials(db: Db, now: Date): Promise<number> {
  return deleteExpiredCredentials(db, {
    now,
    codesBefore: new Date(now.getTime() - CODE_GRACE_MS),
    activityBefore: new Date(now.getTime() - ACTIVITY_RETENTION_MS),
    tombstonesBefore: new Date(now.getTime() - TOMBSTONE_RETENTION_MS),
  });
}

/** Runs `purgeExpiredCredentials` now and then every 10 minutes; returns its stop function. */
export function startHousekeeping(
  db: Db,
  now: () => Date,
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void },
): () => void {
  const run = () =>
    purgeExpiredCredentials(db, now())
      .then((purged) => {
        if (purged > 0)
          log.info({ purged }, "purged expired sessions, tokens, codes, reset links and old activity");
      })
      .catch((err: unknown) => log.error({ err }, "housekeeping failed"));
  void run();
  const timer = setInterval(run, HOUSEKEEPING_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
