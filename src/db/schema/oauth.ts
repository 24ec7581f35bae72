import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";
import { members } from "./members.ts";
import { vendors } from "./vendors.ts";

/**
 * An OAuth client (CONTRACT 6), registered by one vendor. Only that vendor may authorize it
 * unless it is marked public: a shop's own integration is not offered to others.
 * Secrets, codes and tokens are stored only as SHA-256 hashes: they carry 256 random bits.
 */
export const applications = pgTable(
  "applications",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    clientId: text("client_id").notNull(),
    clientSecretHash: text("client_secret_hash").notNull(),
    /** Compared by exact string equality (RFC 9700 2.1, spec 5 rule 1). */
    redirectUris: jsonb("redirect_uris").$type<string[]>().notNull(),
    /** Any shop may authorize a public application; a private one only the shop that registered it. */
    public: boolean("public").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("applications_client_id_key").on(t.clientId),
    index("applications_vendor_idx").on(t.vendorId),
  ],
);

/** One vendor's authorization of one application: every token descends from a grant. */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: id(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id, { onDelete: "cascade" }),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    createdAt: createdAt(),
    /** Revoking the grant invalidates every access and refresh token issued under it. */
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    index("oauth_grants_vendor_idx").on(t.vendorId),
    index("oauth_grants_application_idx").on(t.applicationId),
  ],
);

export const oauthCodes = pgTable(
  "oauth_codes",
  {
    id: id(),
    codeHash: text("code_hash").notNull(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id, { onDelete: "cascade" }),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    codeChallenge: text("code_challenge").notNull(),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    /** The grant the code was exchanged for, so a replay can revoke it (RFC 6749 4.1.2). */
    grantId: text("grant_id").references(() => oauthGrants.id, { onDelete: "set null" }),
  },
  (t) => [uniqueIndex("oauth_codes_code_hash_key").on(t.codeHash)],
);

export const oauthAccessTokens = pgTable(
  "oauth_access_tokens",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("oauth_access_tokens_token_hash_key").on(t.tokenHash),
    index("oauth_access_tokens_grant_idx").on(t.grantId),
  ],
);

export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    /** Set when exchanged; a second use of a rotated token is reuse (RFC 9700 4.14.2). */
    rotatedAt: ts("rotated_at"),
  },
  (t) => [
    uniqueIndex("oauth_refresh_tokens_token_hash_key").on(t.tokenHash),
    index("oauth_refresh_tokens_grant_idx").on(t.grantId),
  ],
);

/** Dashboard sign-in sessions: the cookie holds a random id, the table only its hash. */
export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    /** Who is signed in; removing the member deletes their sessions (they are signed out at once). */
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    /**
     * Set while the password was right but the second step is still due: "code" (a
     * TOTP or recovery code) or "setup" (the shop requires two-step sign-in and the member has
     * none yet). Such a session opens no page but that step's.
     */
    secondStep: text("second_step").$type<"code" | "setup">(),
    /**
     * Codes tried at this pending sign-in's second step, each counted before it is checked: a
     * pending sign-in takes a bounded number of guesses, from whatever addresses, then the
     * password is asked again.
     */
    secondStepAttempts: integer("second_step_attempts").notNull().default(0),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    /**
     * A one-time secret (new API key, client secret, webhook secret) waiting for the next page,
     * sealed with a key derived from the session's cookie value, which the table does not hold:
     * unreadable at rest, read once, gone with the session (see dashboard/session.ts).
     */
    pendingSecret: text("pending_secret"),
  },
  (t) => [
    uniqueIndex("dashboard_sessions_token_hash_key").on(t.tokenHash),
    index("dashboard_sessions_vendor_idx").on(t.vendorId),
    index("dashboard_sessions_member_idx").on(t.memberId),
  ],
);
