// `npm start`: src/main.ts, compiled once into one ES module per version of the sources and run
// from there, instead of through tsx's loader module by module at every start (docs/decisions/0015).
// A warm restart under tsx spent ~2.5 s of CPU finding, transforming and linking ~460 modules of
// src/ through a loader thread; the compiled file loads in a fraction of that.
//
// - What is compiled: src/ only, by esbuild (what tsx itself uses), with the packages left as
//   imports, so node_modules load as in production. Each module's `import.meta.url` stays its
//   source file's URL, so files read beside a module (migrations/, the dashboard's assets, the
//   guides) are found where tsx finds them. A source map beside it names src/ lines in stacks.
// - When: the cache key is every file under src/ (path, size, modification time), this script and
//   the Node version; a change to any of them compiles again (~1 s) into .start-cache/<key>/.
// - Any failure to compile or to write the cache falls back to tsx, as `npm start` ran before.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const src = path.join(root, "src");
const cacheRoot = path.join(root, ".start-cache");

function sourcesKey() {
  const hash = createHash("sha256");
  hash.update(process.version);
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  const entries = fs.readdirSync(src, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    const st = fs.statSync(file);
    hash.update(`${file}\0${st.size}\0${st.mtimeMs}\0`);
  }
  return hash.digest("hex").slice(0, 16);
}

async function compile(outFile) {
  const { build } = await import("esbuild");
  const tmp = `${outFile}.${process.pid}.tmp`;
  await build({
    entryPoints: [path.join(src, "main.ts")],
    outfile: tmp,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "error",
    plugins: [
      {
        name: "source-module-urls",
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            const text = await fs.promises.readFile(args.path, "utf8");
            const url = JSON.stringify(pathToFileURL(args.path).href);
            return { contents: text.replaceAll("import.meta.url", url), loader: "ts" };
          });
        },
      },
    ],
  });
  // The map is named after the temporary file: point the compiled file at its final name.
  const code = fs
    .readFileSync(tmp, "utf8")
    .replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${path.basename(outFile)}.map`);
  fs.writeFileSync(`${outFile}.map`, fs.readFileSync(`${tmp}.map`), { mode: 0o600 });
  fs.writeFileSync(tmp, code);
  fs.chmodSync(tmp, 0o600);
  fs.rmSync(`${tmp}.map`);
  // Renamed into place last: a start running beside this one never reads half a file.
  fs.renameSync(tmp, outFile);
}

async function compiledMain() {
  const dir = path.join(cacheRoot, sourcesKey());
  const main = path.join(dir, "main.js");
  if (!fs.existsSync(main)) {
    fs.rmSync(cacheRoot, { recursive: true, force: true });
    // Our own account only, as every file the service writes.
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    await compile(main);
  }
  return main;
}

let main;
try {
  main = await compiledMain();
} catch (err) {
  console.error(`npm start: compiling src/ failed (${err.message}); running it through tsx`);
}
if (main) {
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(main).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
}
