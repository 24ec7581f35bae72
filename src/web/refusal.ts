// A refusal as the person who made it reads it. The services refuse in English, for developers
// (CONTRACT 2: the API's problem bodies stay English); a dashboard flash is read by a shop's
// people, in their language (src/i18n). Rules, in order:
// 1. A ReaderRefusal is already in the reader's words (the page said it with their translator).
// 2. An English reader gets the service's own sentence, as the API words it.
// 3. A refusal whose English is a catalogue message the page kit knows (refusals it shares with
//    two-step sign-in) is that message in the reader's language.
// 4. Anything else: the sentence for its error code (refusals.code.*), never English.
import { AppError, type ErrorCode, type FieldError } from "../errors.ts";
import { baseLanguage } from "../i18n/languages.ts";
import { type Translator, translator } from "../i18n/translator.ts";

/** A refusal whose message the page already wrote in the reader's language. */
export class ReaderRefusal extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    extra: { errors?: FieldError[]; [key: string]: unknown } = {},
  ) {
    super(code, message, extra);
    this.name = "ReaderRefusal";
  }
}

const english = translator(baseLanguage);

/** Catalogue keys whose English is, word for word, a refusal the services or the page kit say. */
const sameWords = [
  "account.twoStep.errors.wrongCode",
  "account.twoStep.errors.noSetup",
  "account.twoStep.errors.alreadyOn",
  "account.twoStep.errors.wrongPassword",
  "account.twoStep.errors.shopRequires",
  "account.twoStep.errors.unavailable",
];

function knownSentence(t: Translator, message: string): string | undefined {
  const key = sameWords.find((k) => english.t(k) === message);
  if (key) return t.t(key);
  const minutes = Number(/^Too many wrong passwords\. Please wait (\d+) minute/.exec(message)?.[1]);
  const tooMany = "account.twoStep.errors.tooManyPasswords";
  if (Number.isInteger(minutes) && english.t(tooMany, { minutes }) === message)
    return t.t(tooMany, { minutes });
  return undefined;
}

/** What a flash says for a refusal, in the reader's language (the rules above). */
export function refusalText(t: Translator, error: AppError): string {
  if (error instanceof ReaderRefusal) return error.message;
  if (t.locale === baseLanguage) return error.message;
  const known = knownSentence(t, error.message);
  if (known !== undefined) return known;
  const key = `refusals.code.${error.code}`;
  return t.has(key) ? t.t(key) : t.t("refusals.code.other");
}
