// The pseudo-locale (languages.ts): each English message with its letters accented and 40 % more
// text, inside brackets. Only the message's own words change: placeholders, plural and select
// branches keep their structure, so a message formats exactly as in English, only longer.
import { type MessageFormatElement, parse, TYPE } from "@formatjs/icu-messageformat-parser";

const accents: Record<string, string> = Object.fromEntries(
  [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"].map((c, i) => [
    c,
    [..."àƀçđéƒĝĥîĵķļɱñöƥǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĻṀÑÖƤǪŔŠŢÛṼŴẊÝŽ"][i] as string,
  ]),
);
const filler = " ļöŕéɱ îƥšûɱ đöļöŕ šîţ àɱéţ çöñšéçţéţûŕ àđîƥîšçîñĝ éļîţ šéđ đö éîûšɱöđ ţéɱƥöŕ";

const accent = (text: string) => text.replace(/[A-Za-z]/g, (c) => accents[c] ?? c);

function literalLength(elements: MessageFormatElement[]): number {
  return elements.reduce((n, e) => n + (e.type === TYPE.literal ? e.value.length : 4), 0);
}

function transform(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((e) => {
    if (e.type === TYPE.literal) return { ...e, value: accent(e.value) };
    if (e.type === TYPE.plural || e.type === TYPE.select) {
      const options = Object.fromEntries(
        Object.entries(e.options).map(([k, option]) => [k, { ...option, value: transform(option.value) }]),
      );
      return { ...e, options } as MessageFormatElement;
    }
    if (e.type === TYPE.tag) return { ...e, children: transform(e.children) };
    return e;
  });
}

/** The pseudo-locale's form of an English message, as an AST IntlMessageFormat accepts. */
export function pseudoMessage(message: string): MessageFormatElement[] {
  const ast = parse(message);
  const extra = Math.ceil(literalLength(ast) * 0.4);
  const padding = filler.repeat(Math.ceil(extra / filler.length) + 1).slice(0, extra);
  return [
    { type: TYPE.literal, value: "[" },
    ...transform(ast),
    { type: TYPE.literal, value: `${padding}]` },
  ];
}
