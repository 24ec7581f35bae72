// A catalogue message with markup inside it ("New inquiries are mailed to <strong>{address}</strong>."):
// the sentence stays whole in the catalogue, so each language orders its words as it must, and the
// markup goes in where its placeholder lands. The message text is escaped like any other text.
import type { MessageValues, Translator } from "../i18n/translator.ts";
import { html, type SafeHtml } from "../web/html.ts";

const MARK = "\u0001";

export function richMessage(
  t: Translator,
  key: string,
  values: MessageValues,
  parts: Record<string, SafeHtml>,
): SafeHtml {
  const marks = Object.fromEntries(Object.keys(parts).map((name) => [name, `${MARK}${name}${MARK}`]));
  const pieces = t.t(key, { ...values, ...marks }).split(new RegExp(`${MARK}(\\w+)${MARK}`));
  // split with a capture group: even pieces are text, odd ones the names of the parts.
  return html`${pieces.map((piece, i) => (i % 2 === 0 ? piece : (parts[piece] ?? "")))}`;
}
