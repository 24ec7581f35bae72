// Grants, codes and tokens. Tokens are looked up by their SHA-256 hash; a token is live only
// while its grant is (revoking a grant is how whole token families die, RFC 9700 4.14.2).
import { and, desc, eq, gt, inArray, isNull, max, ne } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import {
  applications,
  oauthAccessTokens,
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
} from "../../db/schema/index.ts";

export type CodeRow = typeof oauthCodes.$inferSelect;
export type GrantRow = typeof oauthGrants.$inferSelect;
export type RefreshTokenRow = typeof oauthRefreshTokens.$inferSelect;

export async function insertCode(db: Executor, row: typeof oauthCodes.$inferInsert): Promise<void> {
  await db.insert(oauthCodes).values(row);
}

/** Marks the vendor's code used and returns it, or undefined when it was already used or never existed. */
export async function consumeCode(
  db: Executor,
  vendorId: string,
  codeHash: string,
  at: Date,
): Promise<CodeRow | undefined> {
  const [row] = await db
    .update(oauthCodes)
    .set({ usedAt: at })
    .where(
      and(eq(oauthCodes.vendorId, vendorId), eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)),
    )
    .returning();
  return row;
}

export async function findCodeByHash(db: Executor, codeHash: string): Promise<CodeRow | undefined> {
  const [row] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  return row;
}

export async function linkCodeToGrant(
  db: Executor,
  vendorId: string,
  codeId: string,
  grantId: string,
): Promise<void> {
  await db
    .update(oauthCodes)
    .set({ grantId })
    .where(and(eq(oauthCodes.vendorId, vendorId), eq(oauthCodes.id, codeId)));
}

export async function insertGrant(db: Executor, row: typeof oauthGrants.$inferInsert): Promise<void> {
  await db.insert(oauthGrants).values(row);
}

export async function findGrant(db: Executor, id: string): Promise<GrantRow | undefined> {
  const [row] = await db.select().from(oauthGrants).where(eq(oauthGrants.id, id)).limit(1);
  return row;
}

export async function revokeGrant(db: Executor, vendorId: string, id: string, at: Date): Promise<void> {
  await db
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.vendorId, vendorId), eq(oauthGrants.id, id), isNull(oauthGrants.revokedAt)));
}

/** Tokens carry no vendor column: a token is the vendor's when its grant is. */
function grantsOfVendor(db: Executor, vendorId: string) {
  return db.select({ id: oauthGrants.id }).from(oauthGrants).where(eq(oauthGrants.vendorId, vendorId));
}

export async function revokeGrantsOfVendor(db: Executor, vendorId: string, at: Date): Promise<void> {
  await db
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.vendorId, vendorId), isNull(oauthGrants.revokedAt)));
}

export async function insertAccessToken(
  db: Executor,
  row: typeof oauthAccessTokens.$inferInsert,
): Promise<void> {
  await db.insert(oauthAccessTokens).values(row);
}

export async function insertRefreshToken(
  db: Executor,
  row: typeof oauthRefreshTokens.$inferInsert,
): Promise<void> {
  await db.insert(oauthRefreshTokens).values(row);
}

/** A live access token with its grant and client, or undefined (one indexed query). */
export async function findLiveAccessToken(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .select({
      tokenId: oauthAccessTokens.id,
      expiresAt: oauthAccessTokens.expiresAt,
      scopes: oauthAccessTokens.scopes,
      grantId: oauthGrants.id,
      vendorId: oauthGrants.vendorId,
      clientId: applications.clientId,
    })
    .from(oauthAccessTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
    .innerJoin(applications, eq(applications.id, oauthGrants.applicationId))
    .where(
      and(
        eq(oauthAccessTokens.tokenHash, tokenHash),
        isNull(oauthAccessTokens.revokedAt),
        isNull(oauthGrants.revokedAt),
        gt(oauthAccessTokens.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

/**
 * The scopes and expiry of an access token still live (not expired, not revoked, its grant not
 * revoked), by id: what an open event stream checks when told its grant changed.
 */
export async function findLiveAccessTokenById(db: Executor, id: string, now: Date) {
  const [row] = await db
    .select({ scopes: oauthAccessTokens.scopes, expiresAt: oauthAccessTokens.expiresAt })
    .from(oauthAccessTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
    .where(
      and(
        eq(oauthAccessTokens.id, id),
        isNull(oauthAccessTokens.revokedAt),
        isNull(oauthGrants.revokedAt),
        gt(oauthAccessTokens.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

/** Any access token by hash with the application its grant belongs to (for revocation). */
export async function findAccessTokenWithClient(db: Executor, tokenHash: string) {
  const [row] = await db
    .select({
      id: oauthAccessTokens.id,
      applicationId: oauthGrants.applicationId,
      vendorId: oauthGrants.vendorId,
    })
    .from(oauthAccessTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
    .where(eq(oauthAccessTokens.tokenHash, tokenHash))
    .limit(1);
  return row;
}

export async function revokeAccessToken(db: Executor, vendorId: string, id: string, at: Date): Promise<void> {
  await db
    .update(oauthAccessTokens)
    .set({ revokedAt: at })
    .where(
      and(
        eq(oauthAccessTokens.id, id),
        inArray(oauthAccessTokens.grantId, grantsOfVendor(db, vendorId)),
        isNull(oauthAccessTokens.revokedAt),
      ),
    );
}

/** Any refresh token by hash with its grant. */
export async function findRefreshToken(db: Executor, tokenHash: string) {
  const [row] = await db
    .select({ token: oauthRefreshTokens, grant: oauthGrants })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
    .limit(1);
  return row;
}

/**
 * Marks the refresh token rotated; returns false when another request already did. The
 * conditional UPDATE is the lock: of concurrent refreshes with one token exactly one sees `true`.
 */
export async function markRefreshTokenRotated(
  db: Executor,
  vendorId: string,
  id: string,
  at: Date,
): Promise<boolean> {
  const rows = await db
    .update(oauthRefreshTokens)
    .set({ rotatedAt: at })
    .where(
      and(
        eq(oauthRefreshTokens.id, id),
        inArray(oauthRefreshTokens.grantId, grantsOfVendor(db, vendorId)),
        isNull(oauthRefreshTokens.rotatedAt),
      ),
    )
    .returning({ id: oauthRefreshTokens.id });
  return rows.length > 0;
}

/** The vendor's live grants with their application, newest first (one query). */
export async function listLiveGrantsOfVendor(db: Executor, vendorId: string) {
  return db
    .select({
      grantId: oauthGrants.id,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      applicationId: applications.id,
      applicationName: applications.name,
      clientId: applications.clientId,
    })
    .from(oauthGrants)
    .innerJoin(applications, eq(applications.id, oauthGrants.applicationId))
    .where(and(eq(oauthGrants.vendorId, vendorId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt));
}

export async function revokeGrantsOfApplicationForVendor(
  db: Executor,
  vendorId: string,
  applicationId: string,
  at: Date,
): Promise<number> {
  const rows = await db
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(
      and(
        eq(oauthGrants.vendorId, vendorId),
        eq(oauthGrants.applicationId, applicationId),
        isNull(oauthGrants.revokedAt),
      ),
    )
    .returning({ id: oauthGrants.id });
  return rows.length;
}

/**
 * Marks the vendor's unused codes used, so a code issued before a password change or a
 * disconnection cannot become a new grant afterwards (its exchange then fails as invalid_grant).
 */
export async function voidUnusedCodes(
  db: Executor,
  where: { vendorId: string; applicationId?: string },
  at: Date,
): Promise<void> {
  await db
    .update(oauthCodes)
    .set({ usedAt: at })
    .where(
      and(
        eq(oauthCodes.vendorId, where.vendorId),
        where.applicationId ? eq(oauthCodes.applicationId, where.applicationId) : undefined,
        isNull(oauthCodes.usedAt),
      ),
    );
}

/**
 * When each application last obtained an access token for the vendor (code exchange or refresh):
 * access tokens are not written to on use, so issuance is the last use the data records.
 */
export async function lastTokenIssuedPerApplication(db: Executor, vendorId: string) {
  return db
    .select({ applicationId: oauthGrants.applicationId, lastIssuedAt: max(oauthAccessTokens.createdAt) })
    .from(oauthAccessTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
    .where(and(eq(oauthGrants.vendorId, vendorId), isNull(oauthGrants.revokedAt)))
    .groupBy(oauthGrants.applicationId);
}

/** Revokes the grants other shops hold to an application its owner made private. */
export async function revokeGrantsOfOtherShops(
  db: Executor,
  applicationId: string,
  ownerVendorId: string,
  at: Date,
): Promise<void> {
  await db
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(
      and(
        eq(oauthGrants.applicationId, applicationId),
        ne(oauthGrants.vendorId, ownerVendorId),
        isNull(oauthGrants.revokedAt),
      ),
    );
}
