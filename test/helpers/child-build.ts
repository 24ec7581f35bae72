// The service and CLI that tests start as child processes run as JavaScript compiled once per
// test run, as production runs `dist/` (README: Production). Loading the TypeScript through tsx
// instead costs each child ~1.3 s of CPU before it does anything, and the suite starts ~75
// children on a 2-core machine.
//
// vitest.config.ts runs this as its globalSetup, before any worker starts: esbuild bundles the two
// entry points (src/main.ts, src/cli.ts) with their dependencies into .test-build/, and copies the
// assets tsc would not compile, as `npm run build` does. One bundle instead of ~600 modules found,
// read and compiled one by one: measured here, a service reaches /health on ~0.8 s less CPU
// (2.8 → 2.0 s) and a CLI command runs on ~0.5 s less (1.5 → 1.0 s). The code is the same; only
// how Node loads it differs (production's `dist/` keeps one file per module: scripts/smoke-dist.sh).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { startClientRelease } from "./client-release.ts";
import { awaitOutcome, writeOutcome } from "./outcome-file.ts";
import { checkoutTempPath, tempDir } from "./temp-dir.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CHILD_BUILD_DIR = path.join(root, ".test-build");

/**
 * Node flags for every child a test starts. `--liftoff-only`: V8 compiles PGlite's WebAssembly
 * with its baseline compiler only, skipping the optimizing tier-up that a child living a few
 * seconds never profits from. Measured here: opening a migrated PGlite 2.0 → 1.3 s of CPU,
 * migrating a new one 7.3 → 5.8 s. What the child does is unchanged; only how V8 compiles it.
 */
export const CHILD_NODE_FLAGS = ["--liftoff-only"];

/**
 * Each module of src/ that reads a file beside it (`new URL("../../migrations", import.meta.url)`)
 * gets the URL it would have unbundled, `.test-build/<its path>.js`: the relative paths to
 * migrations/, docs/ and the copied assets hold as they do in `dist/`.
 */
function ownModuleUrls(src: string): Plugin {
  return {
    name: "own-module-urls",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(src + path.sep)) return undefined;
        const text = await fs.promises.readFile(args.path, "utf8");
        const unbundled = path.join(CHILD_BUILD_DIR, path.relative(src, args.path)).replace(/\.ts$/, ".js");
        return {
          contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(unbundled).href)),
          loader: "ts",
        };
      });
    },
  };
}

/** The assets of src/ (stylesheets, scripts): what `npm run build` copies beside the compiled code. */
function assetFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && !e.name.endsWith(".ts") && !e.name.endsWith(".md"))
    .map((e) => path.join(e.parentPath, e.name));
}

export async function buildForChildProcesses(): Promise<void> {
  const src = path.join(root, "src");
  fs.rmSync(CHILD_BUILD_DIR, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(src, "main.ts"), path.join(src, "cli.ts")],
    outdir: CHILD_BUILD_DIR,
    bundle: true,
    // No code splitting: a shared chunk would turn @fastify/cookie's import() of the CommonJS
    // `cookie` into a namespace holding only `default`. Each entry is one file of its own.
    platform: "node",
    format: "esm",
    target: "node20",
    // PGlite finds its WebAssembly and data files beside its own module; pg's native binding and
    // pino's pretty printer are optional and loaded by name.
    external: ["@electric-sql/pglite", "@electric-sql/pglite/*", "pg-native", "pino-pretty"],
    // The CommonJS packages inside an ES module bundle still call require and read __dirname.
    banner: {
      js: [
        'import { createRequire as __createRequire } from "node:module";',
        'import { fileURLToPath as __fileURLToPath } from "node:url";',
        "const require = __createRequire(import.meta.url);",
        "const __filename = __fileURLToPath(import.meta.url);",
        'const __dirname = __fileURLToPath(new URL(".", import.meta.url));',
      ].join("\n"),
    },
    plugins: [ownModuleUrls(src)],
    logLevel: "warning",
  });
  for (const file of assetFiles(src)) {
    const target = path.join(CHILD_BUILD_DIR, path.relative(src, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}

// A PGlite data directory migrated once per run. A child started on a new empty DATA_DIR spends
// ~5 s of CPU creating and migrating its database; a copy of this one opens in ~2 s. Tests about
// the first run itself (the README walk-through, a first start) keep an empty directory.
// On PGlite runs the template is also dumped as a tar for the workers' in-memory databases
// (test-app.ts): loading it costs ~1.2 s of CPU where creating and migrating one cost ~6 s.
const TEMPLATE_DIR = checkoutTempPath("migrated-data", root);
const TEMPLATE_TAR = path.join(CHILD_BUILD_DIR, "migrated-data.tar");
const TEMPLATE_DONE = path.join(CHILD_BUILD_DIR, "migrated-data.exit-code");

/** Starts migrating the template in a child process; the test run does not wait for it. */
function startTemplate(dump: boolean): void {
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
  child.on("exit", async (code, signal) => {
    let outcome = String(code ?? signal);
    if (code === 0) {
      try {
        smallSharedBuffers(path.join(TEMPLATE_DIR, "pglite"));
      } catch (err) {
        outcome = `configuring it failed: ${(err as Error).message}`;
      }
    }
    if (outcome === "0" && dump) {
      try {
        await dumpTemplate();
      } catch (err) {
        outcome = `dumping it failed: ${(err as Error).message}`;
      }
    }
    // Written last, so no test copies the directory while it is open here.
    writeOutcome(TEMPLATE_DONE, outcome);
  });
}

/**
 * The template's PostgreSQL gets 16 MB of shared buffers instead of initdb's 128 MB. A PGlite
 * zeroes its shared buffers when it opens, in WebAssembly memory that is new to the process: a
 * child opening a copy of this template spent ~0.5 s of its ~2.6 s of CPU on them, and its memory
 * peaked at 328 MB against 204 MB (measured here: a service on a copy, started to /health, three
 * times each way). A test's database is small, and a page that does not fit is read back from
 * PGlite's files as PostgreSQL reads from the page cache. Only this template changes: the
 * service's own PGlite (`npm start`) keeps PostgreSQL's defaults, and tests of a first run start
 * from an empty directory as it does.
 */
function smallSharedBuffers(dataDir: string): void {
  fs.appendFileSync(
    path.join(dataDir, "postgresql.conf"),
    "\n# test/helpers/child-build.ts: a test database is small; zeroing 128 MB costs each start ~0.5 s\nshared_buffers = 16MB\n",
  );
}

async function dumpTemplate(): Promise<void> {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create({ dataDir: path.join(TEMPLATE_DIR, "pglite") });
  try {
    const tar = await db.dumpDataDir("none");
    fs.writeFileSync(`${TEMPLATE_TAR}.tmp`, Buffer.from(await tar.arrayBuffer()));
    fs.renameSync(`${TEMPLATE_TAR}.tmp`, TEMPLATE_TAR);
  } finally {
    await db.close();
  }
}

function templateReady(): Promise<void> {
  return awaitOutcome(TEMPLATE_DONE, "migrating the PGlite template");
}

/** A new DATA_DIR holding a copy of the migrated PGlite database, removed by the caller. */
export async function migratedDataDir(prefix: string): Promise<string> {
  await templateReady();
  const dir = tempDir(prefix);
  fs.cpSync(path.join(TEMPLATE_DIR, "pglite"), path.join(dir, "pglite"), { recursive: true });
  return dir;
}

/** The migrated database as a tar for PGlite's `loadDataDir` (PGlite runs only). */
export async function migratedDataDirTar(): Promise<Blob> {
  await templateReady();
  return new Blob([fs.readFileSync(TEMPLATE_TAR)]);
}

/** vitest globalSetup entry; what it returns runs once the whole run has ended. */
export default async function setup(): Promise<() => Promise<void>> {
  fs.rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  await buildForChildProcesses();
  const released = startClientRelease(root, CHILD_BUILD_DIR);
  startTemplate(!process.env.TEST_DATABASE_URL);
  return async () => {
    await released;
    fs.rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  };
}
