// pg and drizzle's node-postgres driver, loaded when the service opens a PostgreSQL database and
// not at start: the embedded database (PGlite) runs without them (docs/decisions/0016).
import type * as NodePg from "drizzle-orm/node-postgres";

export type Pg = typeof import("pg").default;

export interface PgDriver {
  readonly pg: Pg;
  readonly drizzle: typeof NodePg.drizzle;
  readonly NodePgSession: typeof NodePg.NodePgSession;
}

let loading: Promise<PgDriver> | undefined;

export function loadPgDriver(): Promise<PgDriver> {
  loading ??= Promise.all([import("pg"), import("drizzle-orm/node-postgres")]).then(([pg, nodePg]) => ({
    pg: pg.default,
    drizzle: nodePg.drizzle,
    NodePgSession: nodePg.NodePgSession,
  }));
  return loading;
}
