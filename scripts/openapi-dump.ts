// Writes the OpenAPI document the service serves at /openapi.json to a file (default
// openapi.json), for the linters (npm run lint:openapi) and the TypeScript client's type
// generation. It builds the app on an empty in-memory database and never listens.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { type Database, openDatabase } from "../src/db/client.ts";

/** The document as this script writes it, built by an app on `database` (which it never queries). */
export async function openApiDocumentText(database: Database): Promise<string> {
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "https://api.vendor-api.example",
  });
  const app = await buildApp({ config, database });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2] ?? "openapi.json";
  const database = await openDatabase({ kind: "pglite", dataDir: undefined });
  const text = await openApiDocumentText(database);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  await database.close();
}
