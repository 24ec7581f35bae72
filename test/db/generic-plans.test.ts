// In a pool opened with `genericPlans` (the worker's), a prepared statement (src/db/prepared.ts) is
// planned once per connection: PostgreSQL's default plans each of its first five executions anew
// (custom plans) before it weighs a generic one, which every new connection pays again for the
// dispatcher's large claim. Other pools keep the default. pg_prepared_statements counts both
// kinds of plan. PostgreSQL only.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { preparedStatement } from "../../src/db/prepared.ts";
import { queryRows } from "../../src/db/query-rows.ts";

const url = process.env.TEST_DATABASE_URL;
const databases: Database[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.close()));
});

async function plansAfterSevenRuns(genericPlans: boolean) {
  const database = await openDatabase({ kind: "pg", url: url as string }, { poolSize: 1, genericPlans });
  databases.push(database);
  for (let i = 0; i < 7; i++) expect(await addOne(database.db, { n: i })).toEqual([{ n: i + 1 }]);
  const [plans] = await queryRows<{ generic: number; custom: number }>(
    database.db,
    sql`select generic_plans::int as generic, custom_plans::int as custom
        from pg_prepared_statements where name = 'test_generic_plans_add_one'`,
  );
  return plans;
}

const addOne = preparedStatement<{ n: number }, "n">(
  "test_generic_plans_add_one",
  (p) => sql`select ${p.n}::int + 1 as n`,
);

describe.skipIf(!url)("prepared statements on PostgreSQL", () => {
  it("are planned once, generically, however many times they run on a connection of the worker's pool", async () => {
    expect(await plansAfterSevenRuns(true)).toEqual({ generic: 7, custom: 0 });
  });

  it("keep PostgreSQL's default elsewhere: custom plans first", async () => {
    expect((await plansAfterSevenRuns(false))?.custom).toBe(5);
  });
});
