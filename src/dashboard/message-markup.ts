// Catalogue messages on pages: a sentence with markup around some of its values ("You are
// invited as <strong>owner</strong>"), and a service's refusal said in the reader's language.
import { AppError } from "../errors.ts";
import { baseLanguage } from "../i18n/languages.ts";
import { type MessageValues, type Translator, translator } from "../i18n/translator.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { ReaderRefusal } from "../web/refusal.ts";

/**
 * The message `key` with each of `marked` (already HTML: a <strong>, a <time>) where its
 * placeholder stands, so the language decides the word order; the text around is escaped.
 */
export function messageWith(
  t: Translator,
  key: string,
  values: MessageValues,
  marked: Record<string, SafeHtml>,
): SafeHtml {
  const names = Object.keys(marked);
  const marks = Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE001`]));
  const parts = t.t(key, { ...values, ...marks }).split(/\uE000(\d+)\uE001/);
  return html`${parts.map((part, i) => (i % 2 === 0 ? part : (marked[names[Number(part)] ?? ""] ?? "")))}`;
}

/**
 * Runs `action`; a refusal (an AppError) whose English message `say` knows is thrown again with
 * the reader's words, keeping its code and fields. The services refuse in English because the
 * API's problem bodies are read by developers; a page's reader gets their own language.
 */
export async function sayingRefusals<T>(
  say: (message: string) => string | undefined,
  action: () => Promise<T>,
): Promise<T> {
  try {
    return await action();
  } catch (err) {
    const said = err instanceof AppError ? say(err.message) : undefined;
    if (err instanceof AppError && said !== undefined) throw new ReaderRefusal(err.code, said, err.extra);
    throw err;
  }
}

const english = translator(baseLanguage);

/**
 * For `sayingRefusals`: the refusals whose English is the base catalogue's message of one of
 * `keys` (the services' own words, kept there once), said by `t`.
 */
export function refusalsIn(t: Translator, keys: readonly string[]): (message: string) => string | undefined {
  return (message) => {
    const key = keys.find((k) => english.t(k) === message);
    return key === undefined ? undefined : t.t(key);
  };
}
