// DATABASE_URL through a transaction pooler: a private PgBouncer 1.18 in transaction
// mode with a pool of 2 in front of the run's PostgreSQL, where each transaction may land on
// another server connection. The pool must send no named prepared statement and no startup
// settings, and what needs a session (LISTEN, the migrations' advisory lock) goes to the direct
// URL. PostgreSQL only; the configuration rules are checked on every run.
import fs from "node:fs";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGBOUNCER_BINARY, type PgBouncer, startPgBouncer } from "../../scripts/pgbouncer.ts";
import { type ConfigError, loadConfig } from "../../src/config.ts";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { preparedStatement } from "../../src/db/prepared.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { directUrlOf } from "../helpers/pooler.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const testUrl = process.env.TEST_DATABASE_URL;

describe("DATABASE_POOL_MODE and DATABASE_DIRECT_URL", () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ NODE_ENV: "test", ...env });
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };

  it("the direct URL defaults to DATABASE_URL, in session mode", () => {
    const config = loadConfig({ NODE_ENV: "test", DATABASE_URL: "postgres://a@db:5432/x" });
    expect(config.databaseDirectUrl).toBe("postgres://a@db:5432/x");
    expect(config.databasePoolMode).toBe("session");
  });

  it("transaction mode needs the direct URL: LISTEN through the pooler would hear no revocation", () => {
    expect(
      problems({ DATABASE_URL: "postgres://a@pooler:6432/x", DATABASE_POOL_MODE: "transaction" }),
    ).toEqual([
      "DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL: PostgreSQL itself, for LISTEN and migrations",
    ]);
    const config = loadConfig({
      NODE_ENV: "test",
      DATABASE_URL: "postgres://a@pooler:6432/x",
      DATABASE_DIRECT_URL: "postgres://a@db:5432/x",
      DATABASE_POOL_MODE: "transaction",
    });
    expect(config.databaseDirectUrl).toBe("postgres://a@db:5432/x");
  });

  it("refuses a mode it does not know, and pooling settings without DATABASE_URL", () => {
    expect(problems({ DATABASE_URL: "postgres://a@db/x", DATABASE_POOL_MODE: "statement" })).toEqual([
      'DATABASE_POOL_MODE must be one of session, transaction (got "statement")',
    ]);
    expect(problems({ DATABASE_DIRECT_URL: "postgres://a@db/x", DATABASE_POOL_MODE: "transaction" })).toEqual(
      [
        "DATABASE_DIRECT_URL needs DATABASE_URL",
        "DATABASE_POOL_MODE=transaction needs DATABASE_URL (PGlite has no pooler)",
      ],
    );
  });
});

// Each probe holds its server connection for 20 ms, so the 60 overlap and PgBouncer has to open
// its second connection: an instant probe let the first connection answer all 60 before the
// second had logged in (a loaded CI run saw one backend).
const probe = preparedStatement<{ n: number; backend: number }, "n">(
  "transaction_pooling_probe",
  (p) => sql`select ${p.n}::int + 1 as n, pg_backend_pid() as backend from pg_sleep(0.02)`,
);

describe.skipIf(!testUrl || !fs.existsSync(PGBOUNCER_BINARY))("through PgBouncer in transaction mode", () => {
  let bouncer: PgBouncer;
  let scratch: ScratchDatabase;
  let pooled: Database;
  beforeAll(async () => {
    scratch = await createScratchDatabase(testUrl as string);
    const direct = directUrlOf(scratch.url);
    bouncer = await startPgBouncer({ upstream: direct, poolSize: 2 });
    pooled = await openDatabase(
      { kind: "pg", url: bouncer.url(direct), directUrl: direct, poolMode: "transaction" },
      { genericPlans: true },
    );
  });
  afterAll(async () => {
    await pooled?.close();
    await bouncer?.stop();
    await scratch?.drop();
  });

  it("prepared statements run unnamed: 60 at once over 2 server connections, in and out of transactions", async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0
          ? pooled.db.transaction(async (tx) => (await probe(tx, { n: i }))[0])
          : probe(pooled.db, { n: i }).then((rows) => rows[0]),
      ),
    );
    expect(answers.map((a) => a?.n)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // The statements really were spread over the pooler's server connections.
    expect(new Set(answers.map((a) => a?.backend)).size).toBe(2);
  });

  it("a named statement through the same pooler fails: what the pool must not send", async () => {
    const plain = new pg.Pool({ connectionString: bouncer.url(directUrlOf(scratch.url)), max: 6 });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          plain.query({ name: "named_probe", text: "select $1::int", values: [i] }),
        ),
      );
      expect(outcomes.some((o) => o.status === "rejected")).toBe(true);
    } finally {
      await plain.end();
    }
  });

  it("the pool sends no session settings at connection start (PgBouncer refuses them)", async () => {
    const [row] = await queryRows<{ timeout: string }>(
      pooled.db,
      sql`select current_setting('statement_timeout') as timeout`,
    );
    // The pooler's connect_query sets the server's timeout instead (scripts/pgbouncer.ts).
    expect(row?.timeout).toBe("4s");
  });

  it("LISTEN goes to the direct URL and hears what is committed through the pooler", async () => {
    const heard: string[] = [];
    const unlisten = await pooled.listen("pooling_probe", (payload) => heard.push(payload));
    try {
      for (let i = 0; i < 5; i++)
        await pooled.db.execute(sql`select pg_notify('pooling_probe', ${String(i)})`);
      await eventually(async () => heard.length === 5, 5_000);
      expect(heard).toEqual(["0", "1", "2", "3", "4"]);
    } finally {
      await unlisten();
    }
  });

  it("migrations take and give back their session's advisory lock on the direct connection", async () => {
    await runMigrations(pooled);
    await runMigrations(pooled); // a second process starting: nothing left to apply, no lock left held
    const locks = await queryRows<{ n: number }>(
      pooled.db,
      sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
    );
    expect(locks[0]?.n).toBe(0);
  });
});
