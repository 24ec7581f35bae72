import type { ServiceContext } from "../../context.ts";
import { isId } from "../../lib/ids.ts";
import { searchTerm } from "../../lib/search.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";
import {
  type DuplicatePair,
  findDuplicatePairs,
  findPickableCustomer,
  findPickableCustomers,
  type PickableCustomer,
} from "./customer-picker.repository.ts";

export type { DuplicatePair, PickableCustomer };

/** At most this many customers in the picker, and pairs on the duplicates page. */
export const PICKER_LIMIT = 20;
export const DUPLICATES_LIMIT = 100;

/**
 * The customers the New order page offers for what was typed: phone-first (three digits or more
 * are looked for in the phone numbers, also in the E.164 form of the typed number).
 */
export async function pickCustomers(
  ctx: ServiceContext,
  vendorId: string,
  typed: string | undefined,
): Promise<PickableCustomer[]> {
  const text = searchTerm(typed);
  if (!text) return [];
  const digitsOnly = text.replace(/[^0-9]/g, "");
  const looksLikePhone = digitsOnly.length >= 3 && /^[0-9+()\-./\s]+$/.test(text);
  // A national number's trunk prefix (the 0 of 0170) is not in the stored form (+49 170 …).
  const digits = looksLikePhone ? digitsOnly.replace(/^0+/, "") || digitsOnly : null;
  const e164 = looksLikePhone ? await shopPhoneE164(ctx.db, vendorId, text) : null;
  return findPickableCustomers(ctx.db, vendorId, { text, digits, e164 }, PICKER_LIMIT);
}

/** The shop's customer `id` for a preselected picker, or undefined. */
export async function pickableCustomer(
  ctx: ServiceContext,
  vendorId: string,
  id: string | undefined,
): Promise<PickableCustomer | undefined> {
  return id && isId(id) ? findPickableCustomer(ctx.db, vendorId, id) : undefined;
}

/** Pairs of customers that look like one person (the merge page). */
export async function likelyDuplicates(ctx: ServiceContext, vendorId: string): Promise<DuplicatePair[]> {
  return findDuplicatePairs(ctx.db, vendorId, DUPLICATES_LIMIT);
}
