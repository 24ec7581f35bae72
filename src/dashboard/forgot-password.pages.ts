// The pages of "Forgot password?": ask for a link, and the answer, which is the same whether or
// not the address has an account. Same frame and rules as the sign-in page, in the visitor's
// language.
import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout } from "../web/html.ts";
import type { Reader } from "../web/reader.ts";

export function forgotPasswordPage(
  reader: Reader,
  input: { csrf: string; email?: string; error?: string },
): string {
  const { t } = reader;
  return layout(
    t.t("account.forgot.title"),
    html`<h1>${t.t("account.forgot.title")}</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<p>${t.t("account.forgot.intro")}</p>
<form method="post" action="/forgot-password">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<label for="email">${t.t("account.field.email")}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${input.email ?? ""}">
<button type="submit">${t.t("account.forgot.submit")}</button>
</form>
<p class="muted"><a href="/login">${t.t("account.forgot.back")}</a></p>`,
    reader,
  );
}

export function resetLinkSentPage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t("account.checkMail.title"),
    html`<h1>${t.t("account.checkMail.title")}</h1>
<p role="status">${t.t("account.forgot.sent")}</p>
<p class="muted">${t.t("account.signUp.nothingCame")} <a href="/forgot-password">${t.t("account.forgot.askAgain")}</a></p>
<p><a href="/login">${t.t("account.forgot.back")}</a></p>`,
    reader,
  );
}
