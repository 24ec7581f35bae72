// Writes the OpenAPI document the service serves at /openapi.json to a file (default
// openapi.json), for the linters (npm run lint:openapi) and the TypeScript client's type
// generation. It builds the app on an empty in-memory database and never listens.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";

const out = process.argv[2] ?? "openapi.json";
const database = await openDatabase({ kind: "pglite", dataDir: undefined });
const config = loadConfig({
  NODE_ENV: "test",
  LOG_LEVEL: "silent",
  PUBLIC_URL: "https://api.vendor-api.example",
});
const app = await buildApp({ config, database });
await app.ready();
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(app.swagger(), null, 2)}\n`);
await app.close();
await database.close();
