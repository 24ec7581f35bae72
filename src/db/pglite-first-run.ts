// A new DATA_DIR's database files are made in a child process (docs/decisions/0014). PGlite
// creates them by running initdb in two WebAssembly instances of its own besides the one that
// serves, and what they take (~400 MB) was never given back: a service started on a new directory
// held 520 MB a minute later against 290 MB on the same files opened again. The child makes the
// files with PGlite itself, the options the service opens them with, and exits, taking its memory
// with it; the service then opens the files as on any later start. Nothing else differs: the
// files are PGlite's own, and the directory lock (data-dir-lock.ts) is held throughout.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Whether `pgDir` holds no database yet (PostgreSQL's own marker, which PGlite checks too). */
export function needsInitdb(pgDir: string): boolean {
  return !fs.existsSync(path.join(pgDir, "PG_VERSION"));
}

/**
 * Runs PGlite's initdb for `pgDir` in a child Node process (plain JavaScript, no loader) and
 * waits for it; rejects with the child's last lines of stderr if it fails.
 */
export async function initdbInChildProcess(pgDir: string, options: { startParams: string[] }): Promise<void> {
  const program = [
    `const { PGlite } = require(${JSON.stringify(require.resolve("@electric-sql/pglite"))});`,
    `PGlite.create(${JSON.stringify(pgDir)}, ${JSON.stringify(options)})`,
    "  .then((db) => db.close())",
    "  .catch((err) => { console.error(err); process.exit(1); });",
  ].join("\n");
  // --liftoff-only: V8 compiles PGlite's WebAssembly with its baseline compiler alone, without the
  // optimizing tier a child that lives seconds never profits from: 5.9 → 3.6 s of CPU (two runs
  // each, 2026-12-02, `node [--liftoff-only] -e` of this program), as test/helpers/child-build.ts
  // measured for its children.
  const child = spawn(process.execPath, ["--liftoff-only", "-e", program], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4_000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode) => resolve(exitCode));
  });
  if (code !== 0) {
    throw new Error(`creating the embedded database in ${pgDir} failed (exit ${code}): ${stderr.trim()}`);
  }
}
