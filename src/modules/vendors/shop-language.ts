// The shop's language (Settings, owners) and a member's own dashboard language (their Account
// page): one of the catalogues' languages; a member may also go back to the shop's (null) or,
// outside production, pick the pseudo-locale en-XA to see the dashboard's layout with longer text.
import type { ServiceContext } from "../../context.ts";
import { fieldError } from "../../errors.ts";
import { isLanguage, pseudoLocale } from "../../i18n/languages.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { findLanguages, updateMemberLanguage, updateVendorLanguage } from "./shop-language.repository.ts";
import { findVendorById } from "./vendors.repository.ts";

export async function memberLanguages(ctx: ServiceContext, vendorId: string, memberId: string) {
  return (await findLanguages(ctx.db, vendorId, memberId)) ?? { member: null, shop: "en" };
}

/** Sets the shop's language; a language the service does not speak is refused, naming the field. */
export async function setShopLanguage(
  ctx: ServiceContext,
  vendorId: string,
  language: string,
): Promise<boolean> {
  if (!isLanguage(language))
    throw fieldError("validation_failed", "language", "must be a supported language");
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const before = await findLanguagesOfShop(tx, vendorId);
    if (before === language) return false;
    await updateVendorLanguage(tx, vendorId, language, now);
    await recordActivity(tx, {
      vendorId,
      action: "settings.changed",
      subjectId: null,
      at: now,
      detail: { fields: ["language"] },
    });
    return true;
  });
}

async function findLanguagesOfShop(db: ServiceContext["db"], vendorId: string): Promise<string | undefined> {
  return (await findVendorById(db, vendorId))?.language;
}

/**
 * Sets a member's own language ("" or null: the shop's). The pseudo-locale only where
 * `allowPseudo` (never in production).
 */
export async function setMemberLanguage(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
  language: string | null,
  options: { allowPseudo: boolean },
): Promise<void> {
  const value = language === "" ? null : language;
  if (value !== null && !isLanguage(value) && !(options.allowPseudo && value === pseudoLocale)) {
    throw fieldError("validation_failed", "language", "must be a supported language");
  }
  await updateMemberLanguage(ctx.db, vendorId, memberId, value);
}
