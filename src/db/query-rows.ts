// Raw statements' rows, apart from the module that opens databases (client.ts): a repository that
// only runs statements loads neither driver (PGlite's is ~0.4 s to import).
import type { SQL } from "drizzle-orm";
import type { Executor } from "./client.ts";

/** Rows of a raw statement, whichever driver ran it. */
export async function queryRows<T>(executor: Executor, statement: SQL): Promise<T[]> {
  const result = (await executor.execute(statement)) as unknown as { rows: T[] };
  return result.rows;
}
