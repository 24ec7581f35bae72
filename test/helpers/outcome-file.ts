// How the global setup's background jobs (the migrated PGlite template, the client release) tell
// the workers, which are other processes, that they have ended: an outcome file, "0" or the
// failure, written whole and renamed into place, so a reader never sees it half written.
import fs from "node:fs";

export function writeOutcome(file: string, outcome: string): void {
  fs.writeFileSync(`${file}.tmp`, outcome);
  fs.renameSync(`${file}.tmp`, file);
}

/** Waits for `file` (at most 120 s); throws naming `what` unless its outcome is "0". */
export async function awaitOutcome(file: string, what: string): Promise<void> {
  const until = Date.now() + 120_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > until) throw new Error(`${what} was not ready in 120 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const outcome = fs.readFileSync(file, "utf8");
  if (outcome !== "0") throw new Error(`${what}: ${outcome}`);
}
