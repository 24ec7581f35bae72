// The pages of getting into an account without an operator's help: sign-up, and setting a new
// password from a one-time reset link. Same frame and rules as the sign-in page (sign-in.page.ts),
// in the visitor's language (Accept-Language); errors are catalogue keys or texts already in it.
import { languages } from "../i18n/languages.ts";
import { translator } from "../i18n/translator.ts";
import { DEFAULT_TIME_ZONE, isTimeZone, timeZones } from "../lib/time-zone.ts";
import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout, type SafeHtml } from "../web/html.ts";
import type { Reader } from "../web/reader.ts";

/** A select of every language, each named in itself ("Deutsch", "Polski"), `chosen` selected. */
export function languageOptions(chosen: string): SafeHtml[] {
  return languages.map(
    (code) =>
      html`<option value="${code}"${code === chosen ? html` selected` : ""} lang="${code}">${translator(code).t("language.name")}</option>`,
  );
}

const errorLine = (error: string | undefined) =>
  error ? html`<p class="error" role="alert">${error}</p>` : "";

export function signUpPage(
  reader: Reader,
  input: { csrf: string; language: string; name?: string; email?: string; error?: string },
): string {
  const { t } = reader;
  return layout(
    t.t("account.signUp.title"),
    html`<h1>${t.t("account.signUp.title")}</h1>
${errorLine(input.error)}
<form method="post" action="/signup">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<label for="name">${t.t("account.signUp.shopName")}</label>
<input id="name" name="name" autocomplete="organization" required maxlength="100" value="${input.name ?? ""}">
<label for="email">${t.t("account.field.email")}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${input.email ?? ""}">
<p class="muted">${t.t("account.signUp.emailHint")}</p>
<label for="language">${t.t("account.signUp.language")}</label>
<select id="language" name="language">${languageOptions(input.language)}</select>
<p class="muted">${t.t("account.signUp.languageHint")}</p>
<button type="submit">${t.t("account.signUp.submit")}</button>
</form>
<p class="muted">${t.t("account.signUp.haveAccount")} <a href="/login">${t.t("account.signIn.title")}</a></p>`,
    reader,
  );
}

export function signUpSentPage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t("account.checkMail.title"),
    html`<h1>${t.t("account.checkMail.title")}</h1>
<p role="status">${t.t("account.signUp.sent")}</p>
<p class="muted">${t.t("account.signUp.nothingCame")} <a href="/signup">${t.t("account.signUp.tryAgain")}</a></p>`,
    reader,
  );
}

export function signupConfirmPage(
  reader: Reader,
  input: { csrf: string; token: string; name: string; email: string; timeZone?: string; error?: string },
): string {
  const { t } = reader;
  // Kept as typed after a refusal; else the browser's (browser-zone.js), else UTC without scripts.
  const zone = input.timeZone && isTimeZone(input.timeZone) ? input.timeZone : DEFAULT_TIME_ZONE;
  return layout(
    t.t("account.signUp.choosePassword"),
    html`<h1>${t.t("account.signUp.choosePassword")}</h1>
${errorLine(input.error)}
<p>${t.t("account.signUp.confirmed", { email: input.email, shop: input.name })}</p>
<form method="post" action="/signup/confirm">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<label for="password">${t.t("account.field.password")}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="muted">${t.t("account.field.passwordRule")}</p>
<label for="timeZone">${t.t("account.signUp.timeZone")}</label>
<select id="timeZone" name="timeZone"${input.timeZone ? "" : html` data-browser-zone`}>${timeZones.map((z) => html`<option value="${z}"${z === zone ? html` selected` : ""}>${z.replaceAll("_", " ")}</option>`)}</select>
<p class="muted">${t.t("account.signUp.timeZoneHint")}</p>
<button type="submit">${t.t("account.signUp.submit")}</button>
</form>
<script src="/assets/browser-zone.js" defer></script>`,
    reader,
  );
}

export function signupLinkInvalidPage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t("account.linkInvalid.title"),
    html`<h1>${t.t("account.linkInvalid.title")}</h1>
<p class="error" role="alert">${t.t("account.linkInvalid.signUp")}</p>
<p><a href="/signup">${t.t("account.linkInvalid.signUpAgain")}</a> · <a href="/login">${t.t("account.signIn.title")}</a></p>`,
    reader,
  );
}

export function resetPasswordPage(
  reader: Reader,
  input: { csrf: string; token: string; error?: string },
): string {
  const { t } = reader;
  return layout(
    t.t("account.reset.title"),
    html`<h1>${t.t("account.reset.title")}</h1>
${errorLine(input.error)}
<form method="post" action="/reset-password">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<label for="password">${t.t("account.reset.newPassword")}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="muted">${t.t("account.field.passwordRule")} ${t.t("account.reset.signsOut")}</p>
<button type="submit">${t.t("account.reset.submit")}</button>
</form>`,
    reader,
  );
}

export function resetLinkInvalidPage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t("account.linkInvalid.title"),
    html`<h1>${t.t("account.linkInvalid.title")}</h1>
<p class="error" role="alert">${t.t("account.linkInvalid.reset")}</p>
<p><a href="/forgot-password">${t.t("account.linkInvalid.askNew")}</a></p>`,
    reader,
  );
}

export function passwordResetDonePage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t("account.reset.doneTitle"),
    html`<h1>${t.t("account.reset.doneTitle")}</h1>
<p>${t.t("account.reset.done")}</p>
<p><a href="/login">${t.t("account.signIn.title")}</a></p>`,
    reader,
  );
}
