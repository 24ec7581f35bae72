// The service and CLI that tests start as child processes run as JavaScript compiled once per
// test run, as production runs `dist/` (README: Production). Loading the TypeScript through tsx
// instead costs each child ~1.3 s of CPU before it does anything, and the suite starts ~100
// children on a 2-core machine.
//
// vitest.config.ts runs this as its globalSetup, before any worker starts: esbuild transpiles
// every file of src/ one to one into .test-build/ (no bundling, so each module keeps its own
// import.meta.url and the relative paths to migrations/ and docs/ hold), and copies the assets
// tsc would not compile, as `npm run build` does.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CHILD_BUILD_DIR = path.join(root, ".test-build");

/**
 * Node flags for every child a test starts. `--liftoff-only`: V8 compiles PGlite's WebAssembly
 * with its baseline compiler only, skipping the optimizing tier-up that a child living a few
 * seconds never profits from. Measured here: opening a migrated PGlite 2.0 → 1.3 s of CPU,
 * migrating a new one 7.3 → 5.8 s. What the child does is unchanged; only how V8 compiles it.
 */
export const CHILD_NODE_FLAGS = ["--liftoff-only"];

/** Each import stays an import, its `.ts` extension turned into `.js` (what tsc's rewrite does). */
const keepImports: Plugin = {
  name: "keep-imports",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === "entry-point" ? undefined : { path: args.path.replace(/\.ts$/, ".js"), external: true },
    );
  },
};

function sourceFiles(dir: string): { ts: string[]; assets: string[] } {
  const out = { ts: [] as string[], assets: [] as string[] };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (entry.name.endsWith(".test.ts")) continue;
    if (entry.name.endsWith(".ts")) out.ts.push(file);
    else if (!entry.name.endsWith(".md")) out.assets.push(file);
  }
  return out;
}

export async function buildForChildProcesses(): Promise<void> {
  const src = path.join(root, "src");
  const { ts, assets } = sourceFiles(src);
  fs.rmSync(CHILD_BUILD_DIR, { recursive: true, force: true });
  await build({
    entryPoints: ts,
    outbase: src,
    outdir: CHILD_BUILD_DIR,
    bundle: true,
    plugins: [keepImports],
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  for (const file of assets) {
    const target = path.join(CHILD_BUILD_DIR, path.relative(src, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}

// A PGlite data directory migrated once per run. A child started on a new empty DATA_DIR spends
// ~5 s of CPU creating and migrating its database; a copy of this one opens in ~2 s. Tests about
// the first run itself (the README walk-through, a first start) keep an empty directory.
const TEMPLATE_DIR = path.join(CHILD_BUILD_DIR, "migrated-data");
const TEMPLATE_DONE = path.join(CHILD_BUILD_DIR, "migrated-data.exit-code");

/** Starts migrating the template in a child process; the test run does not wait for it. */
function startTemplate(): void {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "test", DATA_DIR: TEMPLATE_DIR };
  delete env.DATABASE_URL;
  const child = spawn(
    process.execPath,
    [...CHILD_NODE_FLAGS, path.join(CHILD_BUILD_DIR, "cli.js"), "migrate"],
    {
      cwd: root,
      env,
      stdio: "ignore",
    },
  );
  // Written whole, then renamed into place: a reader never sees the file half written.
  child.on("exit", (code, signal) => {
    fs.writeFileSync(`${TEMPLATE_DONE}.tmp`, String(code ?? signal));
    fs.renameSync(`${TEMPLATE_DONE}.tmp`, TEMPLATE_DONE);
  });
}

/** A new DATA_DIR holding a copy of the migrated PGlite database, removed by the caller. */
export async function migratedDataDir(prefix: string): Promise<string> {
  const until = Date.now() + 120_000;
  while (!fs.existsSync(TEMPLATE_DONE)) {
    if (Date.now() > until) throw new Error("the migrated PGlite template was not ready in 120 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  const code = fs.readFileSync(TEMPLATE_DONE, "utf8");
  if (code !== "0") throw new Error(`migrating the PGlite template exited ${code}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vendor-api-${prefix}-`));
  fs.cpSync(path.join(TEMPLATE_DIR, "pglite"), path.join(dir, "pglite"), { recursive: true });
  return dir;
}

/** vitest globalSetup entry. */
export default async function setup(): Promise<void> {
  await buildForChildProcesses();
  startTemplate();
}
