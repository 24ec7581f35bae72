#!/usr/bin/env node
// `npx vendor-api …`: the compiled CLI (dist/, from `npm run build`) when it is there, so
// production runs plain JavaScript; otherwise the TypeScript sources through tsx's loader.
import fs from "node:fs";

const compiled = new URL("../dist/cli.js", import.meta.url);
if (fs.existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli.ts");
}
