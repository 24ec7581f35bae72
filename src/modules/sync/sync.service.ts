// Proof of being in sync (CONTRACT 12, Sync checksum): a POS computes the same per-day hashes
// over what it holds and compares; a day whose hash differs is the one to fetch again
// (`updatedSince` the start of that day), so drift is found without downloading everything.
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { requireDateTime } from "../../lib/instants.ts";
import { checksumDays } from "./checksum.repository.ts";
import type { ChecksumQuery } from "./sync.schemas.ts";

const readScopes = {
  orders: "orders:read",
  customers: "customers:read",
  appointments: "appointments:read",
} as const satisfies Record<ChecksumQuery["resource"], Scope>;

/** The read scope of the resource a checksum query names (undefined for an unknown one). */
export function checksumScope(query: Record<string, unknown>): Scope | undefined {
  const resource = query.resource;
  return typeof resource === "string" && Object.hasOwn(readScopes, resource)
    ? readScopes[resource as keyof typeof readScopes]
    : undefined;
}

export const checksumScopes: readonly Scope[] = Object.values(readScopes);

export async function syncChecksum(ctx: ServiceContext, vendorId: string, query: ChecksumQuery) {
  const until =
    query.until === undefined
      ? await syncHorizon(ctx.db)
      : requireDateTime("until", query.until).toISOString();
  const days = await checksumDays(ctx.db, vendorId, query.resource, until);
  return { resource: query.resource, until, days };
}
