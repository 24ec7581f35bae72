// The owner's wording of the shop's customer mail (CONTRACT 12, "The shop's brand and wording";
// src/mail/wording.ts): per kind and language, a subject and an opening paragraph in plain text
// with the kind's placeholders. Saving refuses an unknown placeholder by its name
// (validation_failed, the field named); a part left empty, or equal to the default, keeps the
// default; reset removes the row. New mail reads the row when its cause commits
// (src/mail/outbox.repository.ts, customerMailRow).
import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError, notFound } from "../../errors.ts";
import { isLanguage } from "../../i18n/languages.ts";
import {
  defaultWording,
  isWordedKind,
  unknownPlaceholders,
  WORDING_LIMITS,
  type WordedKind,
  type Wording,
  wordingPlaceholders,
} from "../../mail/wording.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { deleteMailWording, listMailWordings, upsertMailWording } from "./mail-wording.repository.ts";

/** The shop's wordings by `${kind}/${language}`. */
export async function shopWordings(ctx: ServiceContext, vendorId: string): Promise<Map<string, Wording>> {
  const rows = await listMailWordings(ctx.db, vendorId);
  return new Map(rows.map((r) => [`${r.kind}/${r.language}`, { subject: r.subject, opening: r.opening }]));
}

/** The kind and language of a URL or form, or a 404 for anything else. */
export function wordingTarget(kind: string, language: string): { kind: WordedKind; language: string } {
  if (!isWordedKind(kind) || !isLanguage(language)) throw notFound("Mail wording");
  return { kind, language };
}

/** The problems of a proposed wording, each naming its field ("subject" or "opening"). */
export function wordingErrors(kind: WordedKind, input: { subject: string; opening: string }): FieldError[] {
  const errors: FieldError[] = [];
  const known = wordingPlaceholders[kind].map((n) => `{${n}}`).join(", ");
  for (const field of ["subject", "opening"] as const) {
    const unknown = unknownPlaceholders(kind, input[field]);
    if (unknown.length > 0) {
      errors.push({
        field,
        message: `unknown placeholder ${unknown.map((n) => `{${n}}`).join(", ")}; use ${known}`,
      });
    }
    if (input[field].length > WORDING_LIMITS[field]) {
      errors.push({ field, message: `must be at most ${WORDING_LIMITS[field]} characters` });
    }
  }
  if (/[\r\n]/.test(input.subject.trim())) errors.push({ field: "subject", message: "must be one line" });
  return errors;
}

/** Saves the shop's wording of `kind` in `language`; refused input throws validation_failed naming the field. */
export async function saveWording(
  ctx: ServiceContext,
  vendorId: string,
  target: { kind: WordedKind; language: string },
  input: { subject: string; opening: string },
): Promise<void> {
  const clean = { subject: input.subject.trim(), opening: input.opening.replace(/\r\n/g, "\n").trim() };
  const errors = wordingErrors(target.kind, clean);
  if (errors.length > 0) {
    throw new AppError("validation_failed", errors.map((e) => `${e.field}: ${e.message}`).join("; "), {
      errors,
    });
  }
  const standard = defaultWording(target.kind, target.language);
  const subject = clean.subject && clean.subject !== standard.subject ? clean.subject : null;
  const opening = clean.opening && clean.opening !== standard.opening ? clean.opening : null;
  await ctx.db.transaction(async (tx) => {
    const at = ctx.now();
    if (subject === null && opening === null)
      await deleteMailWording(tx, vendorId, target.kind, target.language);
    else await upsertMailWording(tx, { vendorId, ...target, subject, opening, at });
    await recordActivity(tx, {
      vendorId,
      action: "settings.changed",
      subjectId: null,
      at,
      detail: { fields: [`mail.${target.kind}.${target.language}`] },
    });
  });
}

/** Back to the catalogue's wording. */
export async function resetWording(
  ctx: ServiceContext,
  vendorId: string,
  target: { kind: WordedKind; language: string },
): Promise<void> {
  await deleteMailWording(ctx.db, vendorId, target.kind, target.language);
}
