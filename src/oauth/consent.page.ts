// The consent page (CONTRACT 6), in the signed-in member's language: the sentences come whole from
// the catalogues' `oauth.consent` section and the scopes' descriptions from their `scopes` section;
// the scope names themselves and the form's fields stay as the protocol spells them.
import { type Scope, scopeDescription } from "../auth/scopes.ts";
import type { MessageValues, Translator } from "../i18n/translator.ts";
import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout, type SafeHtml } from "../web/html.ts";
import type { Reader } from "../web/reader.ts";
import type { AuthorizationRequest } from "./authorize/index.ts";

const k = (key: string) => `oauth.consent.${key}`;
const MARK = "\u0001";

/**
 * A catalogue sentence whose values are shown in bold: the sentence stays whole, so each language
 * orders its words as it must, and the text around the values is escaped like any other text.
 */
function withBold(t: Translator, key: string, values: Record<string, string>): SafeHtml {
  const marks: MessageValues = Object.fromEntries(
    Object.keys(values).map((name) => [name, `${MARK}${name}${MARK}`]),
  );
  const pieces = t.t(key, marks).split(new RegExp(`${MARK}(\\w+)${MARK}`));
  // split with a capture group: even pieces are text, odd ones the names of the values.
  return html`${pieces.map((piece, i) => (i % 2 === 0 ? piece : html`<strong>${values[piece] ?? ""}</strong>`))}`;
}

export function consentPage(input: {
  request: AuthorizationRequest;
  /** The validated request's parameters, carried back by the form and checked again on POST. */
  params: Record<string, string>;
  vendorName: string;
  /** The shop that registered the application: who the vendor is trusting. */
  publisherName: string;
  csrf: string;
  /** The signed-in member, whose language the page speaks. */
  reader: Reader;
}): string {
  const { request, params, reader } = input;
  const { t } = reader;
  const application = request.application.name;
  return layout(
    t.t(k("title"), { application }),
    html`<h1>${t.t(k("heading"), { application })}</h1>
<p class="publisher">${withBold(t, k("publisher"), { application, publisher: input.publisherName })}</p>
<p>${withBold(t, k("signedInAs"), { shop: input.vendorName, application })}</p>
<ul class="scopes">${request.scopes.map((s: Scope) => html`<li>${scopeDescription(t, s)} <span class="muted">(${s})</span></li>`)}</ul>
<p class="muted">${t.t(k("returnTo"), { origin: new URL(request.redirectUri).origin })}</p>
<form method="post" action="/api/oauth/authorize">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
${Object.entries(params).map(([key, v]) => html`<input type="hidden" name="${key}" value="${v}">`)}
<button type="submit" name="decision" value="allow">${t.t(k("allow"))}</button>
<button type="submit" name="decision" value="deny">${t.t(k("deny"))}</button>
</form>`,
    reader,
  );
}
