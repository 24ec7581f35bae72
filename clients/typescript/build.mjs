// Builds dist/: ESM JavaScript and .d.ts from src/ (tsc), plus the generated schema types the
// declarations refer to and the forwarding JavaScript, which tsc does not copy. Plain Node 20
// then imports the package and runs its bin.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
rmSync(join(here, "dist"), { recursive: true, force: true });
// The TypeScript of this package, or of the repository it lives in.
const tsc = createRequire(join(here, "package.json")).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", join(here, "tsconfig.json")], { stdio: "inherit" });
copyFileSync(join(here, "src/schema.d.ts"), join(here, "dist/schema.d.ts"));
// The forwarding of vendor-api-listen is JavaScript (the server's build imports it as it is).
copyFileSync(join(here, "src/forwarding.js"), join(here, "dist/forwarding.js"));
copyFileSync(join(here, "src/forwarding.d.ts"), join(here, "dist/forwarding.d.ts"));
chmodSync(join(here, "dist/cli.js"), 0o755);
if (!existsSync(join(here, "dist/index.js"))) throw new Error("build: dist/index.js missing");
