// Writes refused while PGlite's disk is nearly full (db/disk-space.ts): every
// request but GET, HEAD and OPTIONS answers 503 `unavailable` with Retry-After until space is
// freed, each scope in its own shape (problem+json, a page, an OAuth error). Reads go on. The
// log says so once when writes stop and once when they resume; /ready says it meanwhile.
import type { FastifyInstance } from "fastify";
import type { DiskSpaceGuard } from "../db/disk-space.ts";
import { AppError } from "../errors.ts";

/** A disk is not freed in seconds: clients wait a minute before trying again. */
export const DISK_LOW_RETRY_AFTER_SECONDS = 60;
export const DISK_LOW_DETAIL =
  "The server's disk is almost full: writes are refused until an operator frees space (reads still work)";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function registerDiskGuard(app: FastifyInstance, guard: DiskSpaceGuard | undefined): void {
  if (!guard) return;
  const unsubscribe = guard.subscribe(({ low, freeBytes, minFreeBytes, dir }) => {
    const mb = (bytes: number) => Math.floor(bytes / (1024 * 1024));
    const facts = { freeMb: mb(freeBytes), minFreeMb: mb(minFreeBytes), dataDir: dir };
    if (low)
      app.log.error(facts, "disk space low under DATA_DIR: writes refused with 503 until space is freed");
    else app.log.warn(facts, "disk space recovered under DATA_DIR: writes accepted again");
  });
  app.addHook("onClose", async () => {
    unsubscribe();
  });
  app.addHook("onRequest", (request, _reply, done) => {
    if (!guard.low || SAFE_METHODS.has(request.method)) return done();
    done(
      new AppError("unavailable", DISK_LOW_DETAIL, {
        headers: { "retry-after": String(DISK_LOW_RETRY_AFTER_SECONDS) },
      }),
    );
  });
}
