// The statements of the periodic clean-up (housekeeping.ts decides when it runs and what has
// expired): deletes across the credential tables and the activity log, each on its own index.
import { isNotNull, lt, or } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import {
  activity,
  dashboardSessions,
  oauthAccessTokens,
  oauthCodes,
  oauthRefreshTokens,
  passwordResets,
  tombstones,
} from "../db/schema/index.ts";

/**
 * Deletes what expired before `now` (sessions, access and refresh tokens, reset links, and used
 * reset links), codes that expired before `codesBefore`, activity before `activityBefore` and
 * tombstones of deletions before `tombstonesBefore`;
 * returns how many rows went. The deletes run side by side: each is idempotent.
 */
export async function deleteExpiredCredentials(
  db: Db,
  cutoffs: { now: Date; codesBefore: Date; activityBefore: Date; tombstonesBefore: Date },
): Promise<number> {
  const { now, codesBefore, activityBefore, tombstonesBefore } = cutoffs;
  const counts = await Promise.all([
    db
      .delete(dashboardSessions)
      .where(lt(dashboardSessions.expiresAt, now))
      .returning({ id: dashboardSessions.id }),
    db
      .delete(oauthAccessTokens)
      .where(lt(oauthAccessTokens.expiresAt, now))
      .returning({ id: oauthAccessTokens.id }),
    db
      .delete(oauthRefreshTokens)
      .where(lt(oauthRefreshTokens.expiresAt, now))
      .returning({ id: oauthRefreshTokens.id }),
    db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, codesBefore)).returning({ id: oauthCodes.id }),
    db
      .delete(passwordResets)
      .where(or(lt(passwordResets.expiresAt, now), isNotNull(passwordResets.usedAt)))
      .returning({ id: passwordResets.id }),
    db.delete(activity).where(lt(activity.at, activityBefore)).returning({ id: activity.id }),
    db.delete(tombstones).where(lt(tombstones.deletedAt, tombstonesBefore)).returning({ id: tombstones.id }),
  ]);
  return counts.reduce((sum, rows) => sum + rows.length, 0);
}
