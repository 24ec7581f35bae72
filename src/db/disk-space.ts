// The free space under PGlite's DATA_DIR, watched so writes stop before the disk fills. PGlite
// meeting a full disk does not fail a statement: it spins at 100% CPU in XLogFlush, answers
// nothing, ignores SIGTERM and stays that way after space is freed; only SIGKILL ends it
// (docs/upstream/pglite-full-disk.md). So below DISK_MIN_FREE_MB free, the HTTP
// layer refuses writes with 503 and Retry-After (reads go on), /ready says why, and the log says
// so once each way. The space is looked at every second, off the request path (a request reads a
// boolean): the threshold must cover a second of writes plus a WAL segment (16 MB).
import fs from "node:fs";

export type FreeSpaceProbe = (dir: string) => Promise<number>;

/** Bytes available to this (unprivileged) process on the filesystem holding `dir`. */
export const statfsProbe: FreeSpaceProbe = async (dir) => {
  const stats = await fs.promises.statfs(dir);
  return stats.bavail * stats.bsize;
};

export interface DiskSpaceChange {
  low: boolean;
  freeBytes: number;
  minFreeBytes: number;
  dir: string;
}

export interface DiskSpaceGuard {
  /** Free space was below the threshold at the last look: refuse writes. */
  readonly low: boolean;
  readonly minFreeBytes: number;
  /** Calls `fn` when the space goes below the threshold or back above it. */
  subscribe(fn: (change: DiskSpaceChange) => void): () => void;
  /** Looks now (the periodic look runs anyway). */
  check(): Promise<void>;
  stop(): void;
}

export function watchDiskSpace(options: {
  dir: string;
  minFreeBytes: number;
  everyMs?: number;
  /** The measurement; tests pass their own to stand in for a full disk. */
  probe?: FreeSpaceProbe;
}): DiskSpaceGuard {
  const { dir, minFreeBytes, everyMs = 1_000, probe = statfsProbe } = options;
  let low = false;
  let checking: Promise<void> | undefined;
  const listeners = new Set<(change: DiskSpaceChange) => void>();

  const look = async () => {
    let freeBytes: number;
    try {
      freeBytes = await probe(dir);
    } catch {
      return; // the directory vanished or cannot be stat'ed: PGlite will say more than we can
    }
    const nowLow = freeBytes < minFreeBytes;
    if (nowLow === low) return;
    low = nowLow;
    for (const fn of listeners) fn({ low, freeBytes, minFreeBytes, dir });
  };
  const check = () => {
    checking ??= look().finally(() => {
      checking = undefined;
    });
    return checking;
  };
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();

  return {
    get low() {
      return low;
    },
    minFreeBytes,
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    check,
    stop() {
      clearInterval(timer);
    },
  };
}
