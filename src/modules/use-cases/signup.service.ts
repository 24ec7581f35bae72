// Sign-up with a confirmed address (CONTRACT 10). The form takes the shop's name and e-mail and
// answers the same, in about the same time, whether or not the address has an account: a new
// address gets a confirmation link (one day, one use, its token kept as a hash), a registered one
// a note saying so (only its owner reads it). The account is made when the link comes back and
// its password is chosen, so nobody can hold an address they cannot read.
import type { ServiceContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { AppError, fieldError } from "../../errors.ts";
import { baseLanguage, isLanguage } from "../../i18n/languages.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { newId } from "../../lib/ids.ts";
import { isTimeZone } from "../../lib/time-zone.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { isPlausibleEmail } from "../members/forgot-password.service.ts";
import { findMemberByEmail } from "../members/members.repository.ts";
import {
  consumeSignupRequest,
  findLiveSignupRequest,
  insertSignupRequest,
} from "../vendors/signup-requests.repository.ts";
import { findVendorByEmail } from "../vendors/vendors.repository.ts";
import { createVendor } from "./vendor-accounts.service.ts";

export const SIGNUP_TOKEN_PREFIX = "vsu_";
export const SIGNUP_LINK_TTL_MS = 24 * 60 * 60 * 1000;

export interface SignupInput {
  name: string;
  email: string;
  /** The shop's language (one of the catalogues'; default en): its mail and dashboard speak it. */
  language?: string;
}

/** Checks the form (what it says reveals nothing about accounts); throws validation_failed. */
export function checkSignupInput(input: SignupInput): Required<SignupInput> {
  const name = input.name.trim();
  const email = input.email.trim();
  const language = input.language ?? baseLanguage;
  const nameProblem = displayNameProblem(name, 100);
  if (nameProblem) throw fieldError("validation_failed", "name", nameProblem);
  if (!isPlausibleEmail(email))
    throw fieldError("validation_failed", "email", "must be a valid e-mail address");
  if (!isLanguage(language))
    throw fieldError("validation_failed", "language", "must be a supported language");
  return { name, email, language };
}

/**
 * Mails the address a confirmation link, or, when it already has an account, a note saying so
 * (`mail: false`: a sign-up mail budget, per address or per client, is spent, so nothing is
 * mailed). The same work either way: one lookup and one transaction of one or two inserts. The
 * shop is made only when the link comes back, so its e-mail counts as confirmed from its start
 * (`vendors.email_confirmed_at`'s default).
 */
export async function requestSignup(
  ctx: ServiceContext,
  input: SignupInput,
  options: { mail: boolean } = { mail: true },
): Promise<void> {
  const { name, email, language } = checkSignupInput(input);
  if (!options.mail) return;
  const token = generateSecret(SIGNUP_TOKEN_PREFIX, 32);
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    // A shop's address, or any member's: either way the address has an account.
    const existing = (await findVendorByEmail(tx, email)) ?? (await findMemberByEmail(tx, email));
    if (existing) {
      // In the account's language: the member's own, else the shop's, else the one just chosen.
      const known = "vendorId" in existing ? existing.language : existing.language;
      await enqueueMail(tx, {
        kind: "signup_existing",
        to: existing.email,
        data: { language: known ?? language },
        vendorId: "vendorId" in existing ? existing.vendorId : existing.id,
        createdAt: now,
      });
      return;
    }
    await insertSignupRequest(tx, {
      id: newId(),
      name,
      email,
      tokenHash: hashSecret(token),
      language,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SIGNUP_LINK_TTL_MS),
    });
    await enqueueMail(tx, {
      kind: "signup_confirm",
      to: email,
      data: { shopName: name, language },
      vendorId: null,
      secret: token,
      createdAt: now,
    });
  });
}

const looksLikeToken = (token: string) => token.startsWith(SIGNUP_TOKEN_PREFIX) && token.length <= 100;

/** The pending sign-up the link names (shop name and e-mail), or undefined when it is not live. */
export async function findPendingSignup(
  ctx: ServiceContext,
  token: string,
): Promise<{ name: string; email: string } | undefined> {
  if (!looksLikeToken(token)) return undefined;
  const row = await findLiveSignupRequest(ctx.db, hashSecret(token), ctx.now());
  return row ? { name: row.name, email: row.email } : undefined;
}

export class SignupLinkInvalid extends AppError {
  constructor() {
    super("validation_failed", "This sign-up link is not valid: it was used or has expired.", {
      errors: [{ field: "token", message: "is used or expired" }],
    });
  }
}

/**
 * Makes the account the link confirms, with this password, and returns the new vendor. The link
 * is used up only if the account is made (a short password leaves it usable).
 */
export async function confirmSignup(
  ctx: ServiceContext,
  token: string,
  password: string,
  options: {
    /** The browser's language at sign-up (Accept-Language matched): the shop's first language. */
    language?: string;
    /** The shop's IANA time zone, as the confirmation page shows it (the browser's by default). */
    timeZone?: string;
  } = {},
) {
  const { language, timeZone } = options;
  if (password.length < 10 || password.length > 1024) {
    throw fieldError("validation_failed", "password", "must be 10-1024 characters");
  }
  if (timeZone !== undefined && !isTimeZone(timeZone)) {
    throw fieldError("validation_failed", "timeZone", "must be an IANA time zone such as Europe/Lisbon");
  }
  if (!looksLikeToken(token)) throw new SignupLinkInvalid();
  return ctx.db.transaction(async (tx) => {
    const request = await consumeSignupRequest(tx, hashSecret(token), ctx.now());
    if (!request) throw new SignupLinkInvalid();
    // createVendor runs inside this transaction (its own becomes a savepoint): the link is used
    // up only with the account made.
    const inTx: ServiceContext = { db: tx as unknown as Db, now: ctx.now };
    try {
      // The language chosen on the sign-up form, else the browser's at confirmation.
      const chosen = isLanguage(request.language) ? request.language : language;
      return await createVendor(inTx, {
        name: request.name,
        email: request.email,
        password,
        ...(isLanguage(chosen) ? { language: chosen } : {}),
        ...(timeZone ? { timeZone } : {}),
      });
    } catch (err) {
      // Registered meanwhile (another link to the same address was used first).
      if (err instanceof AppError) throw new SignupLinkInvalid();
      throw err;
    }
  });
}
