// A transaction that outlives one callback: opened by the HTTP layer before a handler runs and
// committed after the answer is known, so that a service's change, its outbox events and a
// record written by the HTTP layer (the Idempotency-Key answer) commit together or not at all.
// While it is open, `ServiceContext.db` (see context.ts) hands the transaction to every service
// call made from the request's async context; a service's own `db.transaction(...)` then runs as
// a savepoint inside it, so services keep owning their logic unchanged.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db, Tx } from "./client.ts";

export interface HeldTransaction {
  readonly tx: Tx;
  /** Commits; rejects when the commit fails (nothing was stored then). */
  commit(): Promise<void>;
  /** Rolls back; never rejects. */
  rollback(): Promise<void>;
  readonly open: boolean;
}

const scope = new AsyncLocalStorage<HeldTransaction>();

/** The transaction held for the current request, if any and still open. */
export function heldTransaction(): Tx | undefined {
  const held = scope.getStore();
  return held?.open ? held.tx : undefined;
}

/** Runs `fn` (and everything it starts) with `held` as the database of service calls. */
export function runWithTransaction<T>(held: HeldTransaction, fn: () => T): T {
  return scope.run(held, fn);
}

class Rollback extends Error {}

/** Opens a transaction on `db` and keeps it open until commit() or rollback(). */
export async function holdTransaction(db: Db): Promise<HeldTransaction> {
  let decide!: (commit: boolean) => void;
  const decision = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  let handOver!: (tx: Tx) => void;
  const opened = new Promise<Tx>((resolve) => {
    handOver = resolve;
  });
  const finished = db.transaction(async (tx) => {
    handOver(tx);
    if (!(await decision)) throw new Rollback();
  });
  // BEGIN itself may fail (no connection): then the callback never runs.
  const tx = await Promise.race([
    opened,
    finished.then(() => {
      throw new Error("transaction ended before it began");
    }),
  ]);
  let open = true;
  return {
    tx,
    get open() {
      return open;
    },
    async commit() {
      if (!open) return;
      open = false;
      decide(true);
      await finished;
    },
    async rollback() {
      if (!open) return;
      open = false;
      decide(false);
      await finished.catch(() => {});
    },
  };
}
