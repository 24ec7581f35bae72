// A PostgreSQL database of its own for a test file that runs the service as separate processes:
// a spawned server's dispatcher would otherwise also deliver (and wait on) other test files'
// webhooks in the shared TEST_DATABASE_URL database.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { directUrlOf } from "./pooler.ts";

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * `url` names the new database on the server of `baseUrl` (through the run's pooler, if any:
 * pooler.ts); creating and dropping it go to PostgreSQL itself.
 */
export async function createScratchDatabase(baseUrl: string): Promise<ScratchDatabase> {
  const name = `vendor_api_scratch_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const adminUrl = directUrlOf(baseUrl);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
