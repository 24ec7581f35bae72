// Answers die young. Under load, the rows of a statement's answer (an 80 KB order list) must be
// garbage once the caller is done with them, not promoted to V8's old generation: promoted
// answers cost the order list about a third of its throughput. pg's own
// query_timeout, which wraps every statement's callback in a closure with a timer, made ~65 KB of
// each 80 KB answer survive scavenges; the pool's read deadlines must not. The loop runs in a child
// process started with --trace-gc-nvp, which reports the bytes each scavenge promoted.
// PostgreSQL only (the pool is pg's).
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const url = process.env.TEST_DATABASE_URL;
const run = promisify(execFile);

/** Bytes promoted by the scavenges between MEASURE and DONE, per statement. */
function promotedPerStatement(trace: string): number {
  let measured = 0;
  let promoted = 0;
  for (const line of trace.split("\n")) {
    if (line.startsWith("MEASURE ")) measured = Number(line.slice(8));
    else if (line.startsWith("DONE")) break;
    else if (measured > 0 && line.includes(" gc=s "))
      promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  if (measured === 0) throw new Error(`no MEASURE line in the child's output:\n${trace.slice(0, 2_000)}`);
  return promoted / measured;
}

describe.skipIf(!url)("the rows of an answer under load", () => {
  it("are not promoted to the old generation: under 16 KB of each 80 KB answer", async () => {
    const { stdout } = await run(
      process.execPath,
      ["--trace-gc-nvp", "--import", "tsx", path.join(import.meta.dirname, "fixtures/answer-loop.ts")],
      { env: { ...process.env, TEST_DATABASE_URL: url }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
    );
    expect(promotedPerStatement(stdout)).toBeLessThan(16 * 1024);
  }, 90_000);
});
