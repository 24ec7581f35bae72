// Transactions on PostgreSQL check their client out of the pool here, and always give it back.
//
// drizzle-orm 0.45.4 (node-postgres/session.js) checks a client out and sends BEGIN *before* the
// try/finally that releases it (upstream issues #6023 and #6114, open): every BEGIN that fails
// (a restarting server, a dropped connection, our read deadline) leaks one client, and once
// the pool is gone the API answers 503 with the database up. So the pool-level transaction is
// replaced: the client is checked out here, drizzle runs the transaction on that one client (a
// session over a client, not a pool, neither checks out nor releases), and the finally below
// releases it whatever failed. Savepoints (a service's nested transaction) are drizzle's, unchanged.
//
// When BEGIN, COMMIT or ROLLBACK itself failed, the connection is in no state we know (a
// transaction may still be open on it): it is released with the error, so the pool destroys it
// instead of handing it to the next request. A failure of the caller's own work (a unique
// violation, an AppError) was rolled back normally, and the connection is reused.

import type { NodePgSession } from "drizzle-orm/node-postgres";
import type { PgTransactionConfig } from "drizzle-orm/pg-core";
import type pg from "pg";

type Transaction = (fn: (tx: unknown) => Promise<unknown>, config?: PgTransactionConfig) => Promise<unknown>;

/** Makes `db.transaction` (db: drizzle over `pool`) check out and release its own client. */
export function releaseClientsOfFailedTransactions(
  db: object,
  pool: pg.Pool,
  Session: typeof NodePgSession,
): void {
  const session = (db as unknown as { session: object }).session;
  type Parts = ConstructorParameters<typeof NodePgSession>;
  const { dialect, schema, options } = session as unknown as {
    dialect: Parts[1];
    schema: Parts[2];
    options: Parts[3];
  };
  const transaction: Transaction = async (fn, config) => {
    const client = await pool.connect();
    let ownFailure: { error: unknown } | undefined;
    let broken: Error | undefined;
    try {
      const onClient = new Session(client, dialect, schema, options);
      return await onClient.transaction(async (tx) => {
        try {
          return await fn(tx);
        } catch (error) {
          ownFailure = { error };
          throw error;
        }
      }, config);
    } catch (error) {
      if (!ownFailure || ownFailure.error !== error) {
        broken = error instanceof Error ? error : new Error(String(error));
      }
      throw error;
    } finally {
      client.release(broken);
    }
  };
  (session as unknown as { transaction: Transaction }).transaction = transaction;
}
