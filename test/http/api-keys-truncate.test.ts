// TRUNCATE api_keys (an operator's reset) reaches every process's verified-key cache
// (docs/decisions/0006): a row trigger never fires for it, so a statement-level trigger notifies. On a database
// of the file's own, since the table is emptied: a scratch PostgreSQL database, or a PGlite made
// from the run's migrated template.
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, pgliteDatabase } from "../../src/db/client.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { authenticateApiKey, createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { openVerifiedKeys, type VerifiedKeys } from "../../src/modules/api-keys/verified-keys.ts";
import { migratedDataDirTar } from "../helpers/child-build.ts";
import { createVendor } from "../helpers/factories.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let scratch: ScratchDatabase | undefined;
let database: Database;
let keys: VerifiedKeys;
beforeAll(async () => {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    scratch = await createScratchDatabase(url);
    database = await openDatabase({ kind: "pg", url: scratch.url });
  } else {
    const client = await PGlite.create({ loadDataDir: await migratedDataDirTar() });
    database = pgliteDatabase(client, () => client.close());
  }
  await runMigrations(database);
  keys = await openVerifiedKeys(database, 60_000);
}, 120_000);
afterAll(async () => {
  await keys?.close();
  await database?.close();
  await scratch?.drop();
});

describe("TRUNCATE api_keys", () => {
  it("makes every process forget the keys it held", async () => {
    const ctx = { db: database.db, now: () => new Date() };
    const vendor = await createVendor(ctx);
    const { key } = await createApiKey(ctx, { vendorId: vendor.id, name: "held" });
    expect(await authenticateApiKey(ctx, key, keys)).toBeDefined();
    // Held: the next authentication reads nothing.
    const before = database.queryCount();
    expect(await authenticateApiKey(ctx, key, keys)).toBeDefined();
    expect(database.queryCount() - before).toBe(0);

    await database.db.execute(sql`truncate api_keys`);
    await eventually(async () => (await authenticateApiKey(ctx, key, keys)) === undefined);
  });
});
