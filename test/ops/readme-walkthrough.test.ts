// The README's walk-through, run as a newcomer would: its shell blocks, command by command, with
// bash against a fresh server that is never stopped. Each `# …` line under a command is the sample
// answer the README shows: the real answer must match it, `…` standing for anything and each
// sample id standing for one real id (the same sample id must be the same real id everywhere).
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, type ServerProcess, startServer, waitForHealth } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { freePort } from "../helpers/test-app.ts";

const README_URL = "http://127.0.0.1:3000";

interface Step {
  command: string;
  expected?: string;
}

/** The shell blocks of the walk-through section, as commands with their sample answers. */
function walkthroughSteps(readme: string): Step[] {
  const start = readme.indexOf("## Walk-through with curl");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end);
  const steps: Step[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? "").split("\n");
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i] ?? "";
      if (line.trim() === "") continue;
      if (line.startsWith("# ")) {
        const last = steps.at(-1);
        if (!last || last.expected !== undefined) throw new Error(`a sample answer with no command: ${line}`);
        last.expected = line.slice(2);
        continue;
      }
      let command = line;
      while (line.endsWith("\\") && i + 1 < lines.length) {
        line = lines[++i] ?? "";
        command += `\n${line}`;
      }
      steps.push({ command });
    }
  }
  return steps;
}

const ID = /\b[a-z0-9]{24}\b/g;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Matches `actual` against a sample, binding sample ids to real ids in `ids`. */
function matchSample(sample: string, actual: string, ids: Map<string, string>): boolean {
  const groups: string[] = [];
  let pattern = "";
  let last = 0;
  for (const m of sample.matchAll(ID)) {
    pattern += escapeWithEllipsis(sample.slice(last, m.index));
    const known = ids.get(m[0]);
    if (known) pattern += escapeRegex(known);
    else if (groups.includes(m[0])) pattern += `\\k<g${groups.indexOf(m[0])}>`;
    else {
      groups.push(m[0]);
      pattern += `(?<g${groups.length - 1}>[a-z0-9]{24,32})`;
    }
    last = (m.index ?? 0) + m[0].length;
  }
  pattern += escapeWithEllipsis(sample.slice(last));
  const match = new RegExp(`^${pattern}$`, "s").exec(actual);
  if (!match) return false;
  groups.forEach((g, i) => {
    ids.set(g, match.groups?.[`g${i}`] as string);
  });
  return true;
}
const escapeWithEllipsis = (s: string) => s.split("…").map(escapeRegex).join(".*?");

let dataDir: string;
let scratch: ScratchDatabase | undefined;
let server: ServerProcess;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = tempDir("readme");
  if (process.env.TEST_DATABASE_URL) scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL);
  env = { DATA_DIR: path.join(dataDir, "data"), ...(scratch ? { DATABASE_URL: scratch.url } : {}) };
  server = startServer([], env, await freePort());
  await waitForHealth(server, 90_000);
}, 120_000);
afterAll(async () => {
  if (server?.child.exitCode === null) server.child.kill("SIGTERM");
  await server?.exited;
  await scratch?.drop();
  fs.rmSync(path.join(repoRoot, "key.json"), { force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the README walk-through", { timeout: 300_000 }, () => {
  it("parses into commands with sample answers", () => {
    const steps = walkthroughSteps(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8"));
    expect(steps.length).toBeGreaterThanOrEqual(8);
    expect(steps.filter((s) => s.expected !== undefined).length).toBeGreaterThanOrEqual(6);
    // Nothing in it stops the server.
    expect(steps.some((s) => /npm start|kill|Ctrl-C/.test(s.command))).toBe(false);
  });

  it("runs on a fresh server, and every answer matches the sample the README shows", async () => {
    const steps = walkthroughSteps(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8"));
    const state = path.join(dataDir, "shell-state.sh");
    fs.writeFileSync(state, "");
    const ids = new Map<string, string>();
    for (const step of steps) {
      const command = step.command.replaceAll(README_URL, server.url);
      // Variables a step sets (KEY, ORDER, ORDER_ID) reach the next steps, as in one terminal (set -a).
      const script = `set -aeo pipefail\nsource ${JSON.stringify(state)}\n${command}\nexport -p > ${JSON.stringify(state)}\n`;
      const { stdout } = await promisify(execFile)("bash", ["-c", script], {
        cwd: repoRoot,
        env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "warn", ...env },
      }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`README command failed:\n${command}\n${err.stderr ?? err.message}`);
      });
      if (step.expected !== undefined) {
        const sample = step.expected.replaceAll(README_URL, server.url);
        expect(
          matchSample(sample, stdout.trim(), ids),
          `${command}\nanswered:\n${stdout}\nREADME shows:\n${sample}`,
        ).toBe(true);
      }
    }
    // The sample ids were bound to real ones: the order's id is the same in every answer.
    expect(ids.get("nc6bzmkmd014706rfda898to")).toMatch(/^[a-z0-9]{24,32}$/);
  });
});
