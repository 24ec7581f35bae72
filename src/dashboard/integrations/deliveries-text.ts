// The delivery log's own text (filters, the retry schedule, "All events") in the reader's
// language, through src/i18n under the catalogue section `deliveries`. The shop has no language
// of its own yet, so the page speaks the browser's (Accept-Language), English when it names none
// of ours; the rest of the dashboard is still English.
import type { FastifyRequest } from "fastify";
import { baseLanguage, negotiateLanguage } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";

export function deliveriesText(request: FastifyRequest): Translator {
  const header = request.headers["accept-language"];
  return translator(negotiateLanguage(typeof header === "string" ? header : undefined, baseLanguage));
}
