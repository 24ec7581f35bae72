// The order test files start in (vitest.config.ts sequence.sequencer). With durations from an
// earlier run in vitest's cache, vitest's own order holds: the longest first. On a fresh clone
// there are none and vitest keeps the files in path order, so a 40 s crash test that happens to
// sort last runs alone at the end while the other worker idles. Here the files that wait on other
// processes (a spawned service or CLI, Chromium, a dispatcher's retries) go first: their waiting
// overlaps with the quick files that follow, and the run ends on short files.
import fs from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const WAITS_ON_PROCESSES =
  /\b(processBackends|startServer|startService|runCli|runCliJson|launchChromium|startDispatcher|useDeliveryFixture)\b/;

/**
 * The longest files, longest first, as measured here on a fresh clone (seconds of their tests,
 * 2026-11-28, PGlite; on PostgreSQL the kill test runs twice, in one process and apart): they
 * start before everything else, so the run never ends on one of them alone. The length of a
 * file's text, the fallback below, put the 38 s docs test 20th.
 */
const LONGEST = [
  "test/webhooks/kill-at-random.test.ts", // 61
  "test/webhooks/crash.test.ts", // 29
  "test/webhooks/worker-leaves.test.ts", // 23 on PostgreSQL (skipped on PGlite)
  "test/docs/docs.browser.test.ts", // 22
  "test/ops/process.test.ts", // 21
  "test/dashboard/confirmations.browser.test.ts", // 20
  "test/ops/process-supervision.test.ts", // 16
  "test/dashboard/team.browser.test.ts", // 16
  "test/http/idempotency-crash.test.ts", // 16
  "test/ops/listen.test.ts", // 15
  "test/http/sigterm-drain.test.ts", // 14
  "test/fuzz/api.test.ts", // 14
  "test/ops/data-dir-permissions.test.ts", // 13
];

function weight(file: string, root: string): number {
  const rank = LONGEST.indexOf(path.relative(root, file).split(path.sep).join("/"));
  if (rank >= 0) return 2_000_000_000 - rank;
  const text = fs.readFileSync(file, "utf8");
  return (WAITS_ON_PROCESSES.test(text) ? 1_000_000_000 : 0) + text.length;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const known = files.every((f) =>
      cache.getFileTestResults(`${f.project.name}:${path.relative(root, f.moduleId)}`),
    );
    if (known) return super.sort(files);
    const weights = new Map(files.map((f) => [f.moduleId, weight(f.moduleId, root)]));
    return [...files].sort((a, b) => (weights.get(b.moduleId) ?? 0) - (weights.get(a.moduleId) ?? 0));
  }
}
