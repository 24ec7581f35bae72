// Prepared statements (src/db/prepared.ts) are planned once per pooled connection: PostgreSQL's
// default would plan each of a statement's first five executions anew (custom plans) before it
// settles on a generic one, which a new connection pays again for the dispatcher's large claim.
// pg_prepared_statements counts both kinds of plan. PostgreSQL only.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, queryRows } from "../../src/db/client.ts";
import { preparedStatement } from "../../src/db/prepared.ts";

const url = process.env.TEST_DATABASE_URL;
let database: Database | undefined;
afterAll(async () => {
  await database?.close();
});

const addOne = preparedStatement<{ n: number }, "n">(
  "test_generic_plans_add_one",
  (p) => sql`select ${p.n}::int + 1 as n`,
);

describe.skipIf(!url)("prepared statements on PostgreSQL", () => {
  it("are planned once, generically, however many times they run on a connection", async () => {
    database = await openDatabase({ kind: "pg", url: url as string }, { poolSize: 1 });
    for (let i = 0; i < 7; i++) expect(await addOne(database.db, { n: i })).toEqual([{ n: i + 1 }]);
    const [plans] = await queryRows<{ generic: number; custom: number }>(
      database.db,
      sql`select generic_plans::int as generic, custom_plans::int as custom
          from pg_prepared_statements where name = 'test_generic_plans_add_one'`,
    );
    expect(plans).toEqual({ generic: 7, custom: 0 });
  });
});
