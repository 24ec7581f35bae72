// Hot statements rendered to SQL text once, at start-up, and run as named prepared statements:
// PostgreSQL parses and plans each once per connection instead of on every request (a write path
// CTE costs more to plan than to run), and Node skips rebuilding the SQL from Drizzle's template
// chunks per request. Values are bound by name through Drizzle placeholders, on whichever
// executor the caller has (the database, or a transaction), through Drizzle's own session, so the
// statement counter, the type parsers and PGlite all behave as for any other query.
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Executor } from "./client.ts";

const dialect = new PgDialect();
const names = new Set<string>();
interface DefinedStatement {
  readonly text: string;
  readonly parameterNames: readonly string[];
  /** The file that defined it (a test may define its own; the snapshots are of src/'s). */
  readonly definedIn: string;
}
/** Every prepared statement defined so far, by name: its SQL text (test/sql snapshots read it). */
const defined = new Map<string, DefinedStatement>();

/** The prepared statements of the modules imported so far, by name. */
export function definedStatements(): ReadonlyMap<string, DefinedStatement> {
  return defined;
}

/** The file of the code that called `preparedStatement`, from the stack (once per statement). */
function callerFile(): string {
  const frames = (new Error().stack ?? "").split("\n").slice(1);
  const outside = frames.find((f) => !f.includes("prepared.ts")) ?? "";
  return /\(?((?:file:\/\/)?\/[^:()]+):\d+:\d+\)?\s*$/.exec(outside)?.[1]?.replace(/^file:\/\//, "") ?? "";
}

export type PreparedStatement<K extends string, R> = ((
  db: Executor,
  values: Record<K, unknown>,
) => Promise<R[]>) & {
  /** The SQL text and, in `$n` order, the value names it binds: for EXPLAIN in plan tests. */
  readonly text: string;
  readonly parameterNames: readonly K[];
};

/**
 * `build` gets a placeholder per value name (`p.vendorId`) and returns the statement; its shape
 * must not depend on the values (branch in SQL instead). `name` must be unique in the process.
 */
export function preparedStatement<R, K extends string = string>(
  name: string,
  build: (p: Record<K, Placeholder<K>>) => SQL,
): PreparedStatement<K, R> {
  if (names.has(name)) throw new Error(`prepared statement ${name} defined twice`);
  names.add(name);
  const placeholders = new Proxy({} as Record<K, Placeholder<K>>, {
    get: (_, key) => sql.placeholder(String(key)),
  });
  const query = dialect.sqlToQuery(build(placeholders));
  // Drizzle's prepared query holds no values, only the text and the driver's config: one per
  // session (the database's, or a transaction's) is built once and run with each call's values,
  // instead of a new one with its configs and closures on every request.
  const prepared = new WeakMap<object, { execute(values: Record<K, unknown>): Promise<unknown> }>();
  const run = async (db: Executor, values: Record<K, unknown>) => {
    const session = db._.session;
    let statement = prepared.get(session);
    if (!statement) {
      statement = session.prepareQuery(query, undefined, name, false);
      prepared.set(session, statement);
    }
    const result = (await statement.execute(values)) as { rows: R[] };
    return result.rows;
  };
  const parameterNames = query.params.map((p) => (p as Placeholder<K>).name);
  defined.set(name, { text: query.sql, parameterNames, definedIn: callerFile() });
  return Object.assign(run, { text: query.sql, parameterNames });
}
