// The client's release artefact: builds clients/typescript (ESM + .d.ts), packs it with npm into
// a directory (default ./release) and writes the tarball's SHA-256 beside it, so a release carries
// `vendor-api-client-<version>.tgz` and `vendor-api-client-<version>.tgz.sha256` for integrators
// to install (`npm install ./vendor-api-client-<version>.tgz`) until the package is on the
// registry. Prints { tarball, sha256, files } as JSON.
//
//   npm run release:client [-- <directory>]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const pkg = path.join(root, "clients/typescript");
const destination = path.resolve(process.argv[2] ?? path.join(root, "release"));
mkdirSync(destination, { recursive: true });

execFileSync(process.execPath, ["build.mjs"], { cwd: pkg, stdio: ["ignore", "ignore", "inherit"] });
// --ignore-scripts: the build above is the prepack script's; it need not run twice.
const [packed] = JSON.parse(
  execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", destination], {
    cwd: pkg,
    encoding: "utf8",
  }),
);
const tarball = path.join(destination, packed.filename);
const sha256 = createHash("sha256").update(readFileSync(tarball)).digest("hex");
// The format `sha256sum -c` reads.
writeFileSync(`${tarball}.sha256`, `${sha256}  ${packed.filename}\n`);
console.log(JSON.stringify({ tarball, sha256, files: packed.files.map((f) => f.path).sort() }, null, 2));
