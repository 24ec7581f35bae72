// Scratch directories for the databases tests start (PGlite data directories, a private
// PostgreSQL cluster): in memory (/dev/shm) where the machine has it. On this machine's disk a copy
// of the migrated 40 MB PGlite template cost ~1 s of CPU and in memory ~0.1 s, and every write a
// child's PGlite makes is cheaper too. Nothing a test checks depends on the disk: a SIGKILLed
// process loses nothing it wrote either way. Each caller removes what it made.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

export const TEMP_ROOT = writable("/dev/shm") ? "/dev/shm" : os.tmpdir();

/** A new empty directory `vendor-api-<prefix>-XXXXXX` under TEMP_ROOT. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(TEMP_ROOT, `vendor-api-${prefix}-`));
}

/** A directory of this checkout's own under TEMP_ROOT (not created): the same path in every process. */
export function checkoutTempPath(name: string, checkoutRoot: string): string {
  const id = crypto.createHash("sha256").update(checkoutRoot).digest("hex").slice(0, 12);
  return path.join(TEMP_ROOT, `vendor-api-${name}-${id}`);
}
