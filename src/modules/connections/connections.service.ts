// Connected applications as a vendor sees them (CONTRACT 6: "Vendors see and revoke connected
// applications in the dashboard"). The dashboard pages call these; a vendor's view lists only the
// grants that vendor gave, and revoking one ends every token the application holds for them.
import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { isId } from "../../lib/ids.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import {
  lastTokenIssuedPerApplication,
  listLiveGrantsOfVendor,
  revokeGrantsOfApplicationForVendor,
  voidUnusedCodes,
} from "./oauth.repository.ts";

export interface ConnectedApplication {
  applicationId: string;
  name: string;
  clientId: string;
  scopes: string[];
  /** When the vendor first authorized it (the oldest live grant). */
  connectedAt: Date;
}

export async function listConnectedApplications(
  ctx: ServiceContext,
  vendorId: string,
): Promise<ConnectedApplication[]> {
  const byApp = new Map<string, ConnectedApplication>();
  for (const row of await listLiveGrantsOfVendor(ctx.db, vendorId)) {
    const seen = byApp.get(row.applicationId);
    if (seen) {
      seen.scopes = [...new Set([...seen.scopes, ...row.scopes])];
      if (row.createdAt < seen.connectedAt) seen.connectedAt = row.createdAt;
    } else {
      byApp.set(row.applicationId, {
        applicationId: row.applicationId,
        name: row.applicationName,
        clientId: row.clientId,
        scopes: [...row.scopes],
        connectedAt: row.createdAt,
      });
    }
  }
  return [...byApp.values()];
}

/** Disconnects an application from the vendor: every grant it holds for them is revoked. */
export async function disconnectApplication(
  ctx: ServiceContext,
  vendorId: string,
  applicationId: string,
): Promise<void> {
  if (!isId(applicationId)) throw notFound("Connected application");
  const revoked = await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    await voidUnusedCodes(tx, { vendorId, applicationId }, now);
    const count = await revokeGrantsOfApplicationForVendor(tx, vendorId, applicationId, now);
    if (count > 0) {
      await recordActivity(tx, {
        vendorId,
        action: "application.disconnected",
        subjectId: applicationId,
        at: now,
      });
    }
    return count;
  });
  if (revoked === 0) throw notFound("Connected application");
}

/** Application id → when it last obtained an access token for this vendor (one grouped query). */
export async function lastTokenIssuedAt(ctx: ServiceContext, vendorId: string): Promise<Map<string, Date>> {
  const rows = await lastTokenIssuedPerApplication(ctx.db, vendorId);
  const out = new Map<string, Date>();
  for (const row of rows) if (row.lastIssuedAt) out.set(row.applicationId, new Date(row.lastIssuedAt));
  return out;
}

/**
 * Whether the vendor already gave this application every one of `scopes` (through grants still
 * live): then a new authorization request for them needs no consent page, as on GitHub. Any scope
 * not yet granted asks again; revoking the application or changing the password forgets it all.
 */
export async function alreadyGranted(
  ctx: ServiceContext,
  vendorId: string,
  applicationId: string,
  scopes: readonly string[],
): Promise<boolean> {
  const granted = new Set<string>();
  for (const row of await listLiveGrantsOfVendor(ctx.db, vendorId)) {
    if (row.applicationId === applicationId) for (const s of row.scopes) granted.add(s);
  }
  return scopes.length > 0 && scopes.every((s) => granted.has(s));
}
