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

function weight(file: string): number {
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
    const weights = new Map(files.map((f) => [f.moduleId, weight(f.moduleId)]));
    return [...files].sort((a, b) => (weights.get(b.moduleId) ?? 0) - (weights.get(a.moduleId) ?? 0));
  }
}
