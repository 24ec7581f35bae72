// Applications are OAuth clients registered by a vendor (CONTRACT 6). The client secret is shown
// once, at creation or rotation, and stored only as a SHA-256 hash.
import type { ServiceContext } from "../../context.ts";
import { fieldError, notFound } from "../../errors.ts";
import { generateSecret, hashSecret, safeEqual } from "../../lib/crypto.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isId, newId } from "../../lib/ids.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { revokeGrantsOfOtherShops } from "../connections/oauth.repository.ts";
import {
  type ApplicationRow,
  deleteApplicationRow,
  findApplicationByClientId,
  findApplicationById,
  insertApplication,
  listApplications as listApplicationRows,
  updateApplicationSecret,
  updateApplicationVisibility,
} from "./applications.repository.ts";
import { redirectUriProblem } from "./redirect-uri.ts";

export type { ApplicationRow };
export { redirectUriProblem };

export const CLIENT_ID_PREFIX = "app_";
const CLIENT_SECRET_PREFIX = "vcs_";
const CLIENT_ID_SHAPE = /^app_[A-Za-z0-9_-]{1,96}$/;
const MAX_REDIRECT_URIS = 10;

export interface CreateApplicationInput {
  name: string;
  redirectUris: string[];
  /** Any shop may authorize it; by default only the registering shop (its own integration). */
  public?: boolean | undefined;
}

export async function createApplication(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateApplicationInput,
): Promise<{ application: ApplicationRow; clientSecret: string }> {
  const name = input.name.trim();
  const nameProblem = displayNameProblem(name, 100);
  if (nameProblem) throw fieldError("validation_failed", "name", nameProblem);
  const redirectUris = [...new Set(input.redirectUris)];
  if (redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS) {
    throw fieldError("validation_failed", "redirectUris", `must list 1-${MAX_REDIRECT_URIS} URIs`);
  }
  for (const [i, uri] of redirectUris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) throw fieldError("validation_failed", `redirectUris.${i}`, problem);
  }
  const clientSecret = generateSecret(CLIENT_SECRET_PREFIX, 32);
  const now = ctx.now();
  const application = await ctx.db.transaction(async (tx) => {
    const inserted = await insertApplication(tx, {
      id: newId(),
      vendorId,
      name,
      clientId: generateSecret(CLIENT_ID_PREFIX, 16),
      clientSecretHash: hashSecret(clientSecret),
      redirectUris,
      public: input.public ?? false,
      createdAt: now,
      updatedAt: now,
    });
    await recordActivity(tx, { vendorId, action: "application.created", subjectId: inserted.id, at: now });
    return inserted;
  });
  return { application, clientSecret };
}

/** A new client secret, shown once; the old one stops working at once. */
export async function rotateApplicationSecret(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<{ application: ApplicationRow; clientSecret: string }> {
  if (!isId(id)) throw notFound("Application");
  const clientSecret = generateSecret(CLIENT_SECRET_PREFIX, 32);
  const application = await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const updated = await updateApplicationSecret(tx, vendorId, id, hashSecret(clientSecret), now);
    if (!updated) throw notFound("Application");
    await recordActivity(tx, { vendorId, action: "application.secret_rotated", subjectId: id, at: now });
    return updated;
  });
  return { application, clientSecret };
}

export function listApplications(ctx: ServiceContext, vendorId: string): Promise<ApplicationRow[]> {
  return listApplicationRows(ctx.db, vendorId);
}

/** One of the vendor's own applications; another vendor's id is not_found. */
export async function getApplication(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<ApplicationRow> {
  const application = isId(id) ? await findApplicationById(ctx.db, vendorId, id) : undefined;
  if (!application) throw notFound("Application");
  return application;
}

/**
 * Publishes the application to every shop, or makes it private again; then the grants other
 * shops hold to it are revoked in the same transaction, so no shop keeps what it could no longer get.
 */
export async function setApplicationPublic(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  isPublic: boolean,
): Promise<ApplicationRow> {
  if (!isId(id)) throw notFound("Application");
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const application = await updateApplicationVisibility(tx, vendorId, id, isPublic, now);
    if (!application) throw notFound("Application");
    if (!isPublic) await revokeGrantsOfOtherShops(tx, application.id, vendorId, now);
    await recordActivity(tx, {
      vendorId,
      action: "application.visibility_changed",
      subjectId: id,
      at: now,
      detail: { public: isPublic },
    });
    return application;
  });
}

/** Whether `vendorId` may authorize the application: its own, or a public one. */
export function mayAuthorize(application: ApplicationRow, vendorId: string): boolean {
  return application.public || application.vendorId === vendorId;
}

/** Deletes the application; its grants, codes and tokens go with it (ON DELETE CASCADE). */
export async function deleteApplication(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id)) throw notFound("Application");
  await ctx.db.transaction(async (tx) => {
    if (!(await deleteApplicationRow(tx, vendorId, id))) throw notFound("Application");
    await recordActivity(tx, { vendorId, action: "application.deleted", subjectId: id, at: ctx.now() });
  });
}

/** The application a client ID names, or undefined (never throws: callers choose the error). */
export async function findClient(ctx: ServiceContext, clientId: string): Promise<ApplicationRow | undefined> {
  // Shape first, so a NUL, an over-long or any odd value never reaches a query (CONTRACT 2).
  if (!CLIENT_ID_SHAPE.test(clientId)) return undefined;
  return findApplicationByClientId(ctx.db, clientId);
}

/** The application when `clientSecret` is its current secret (constant-time compare of hashes). */
export async function authenticateClient(
  ctx: ServiceContext,
  clientId: string,
  clientSecret: string,
): Promise<ApplicationRow | undefined> {
  const application = await findClient(ctx, clientId);
  if (!application || clientSecret.length > 200) return undefined;
  return safeEqual(application.clientSecretHash, hashSecret(clientSecret)) ? application : undefined;
}
