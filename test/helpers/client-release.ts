// The client package's release (scripts/release-client.mjs: build, pack, SHA-256), made once per
// test run for the tests that install it as an integrator would (test/client/). Each of them
// used to build clients/typescript/dist and pack it itself: two builds of ~4 s of CPU, and, as
// the build empties dist/ first, one file's build could remove what the other's `npm pack` was
// reading when the two workers ran them at once.
//
// vitest's globalSetup (child-build.ts) starts it in a child process and does not wait; a test
// awaits `clientRelease()`.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { awaitOutcome, writeOutcome } from "./outcome-file.ts";

export interface ClientRelease {
  /** The release's directory, as passed to the script. */
  dir: string;
  /** What the script printed: the tarball's path, its SHA-256 and the files packed. */
  tarball: string;
  sha256: string;
  files: string[];
}

function paths(buildDir: string) {
  const dir = path.join(buildDir, "client-release");
  return {
    dir,
    answer: path.join(dir, "release.json"),
    done: path.join(buildDir, "client-release.exit-code"),
  };
}

/**
 * Runs the release script into `<buildDir>/client-release`; the outcome lands in a file. Resolves
 * once the script has ended: the run's teardown waits for it, so a run that ends first (one quick
 * file) leaves no build behind to race the next run's over `clients/typescript/dist`.
 */
export function startClientRelease(root: string, buildDir: string): Promise<void> {
  const { dir, answer, done } = paths(buildDir);
  fs.mkdirSync(dir, { recursive: true });
  const out = fs.openSync(answer, "w");
  const child = spawn(process.execPath, [path.join(root, "scripts/release-client.mjs"), dir], {
    cwd: root,
    stdio: ["ignore", out, "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      fs.closeSync(out);
      writeOutcome(done, code === 0 ? "0" : `${code ?? signal}: ${stderr.slice(-2_000)}`);
      resolve();
    });
  });
}

/** The run's client release, once the script has ended. */
export async function clientRelease(buildDir: string): Promise<ClientRelease> {
  const { dir, answer, done } = paths(buildDir);
  await awaitOutcome(done, "the client release (scripts/release-client.mjs)");
  return { dir, ...JSON.parse(fs.readFileSync(answer, "utf8")) };
}
