import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout } from "../web/html.ts";
import type { Reader } from "../web/reader.ts";

export function signInPage(
  reader: Reader,
  input: {
    csrf: string;
    returnTo: string;
    email?: string;
    /** A catalogue key (account.signIn.errors.*). */
    error?: string;
  },
): string {
  const { t } = reader;
  return layout(
    t.t("account.signIn.title"),
    html`<h1>${t.t("account.signIn.title")}</h1>
${input.error ? html`<p class="error" role="alert">${t.t(input.error)}</p>` : ""}
<form method="post" action="/login">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="return_to" value="${input.returnTo}">
<label for="email">${t.t("account.field.email")}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ""}">
<label for="password">${t.t("account.field.password")}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">${t.t("account.signIn.submit")}</button>
</form>
<p class="muted"><a href="/forgot-password">${t.t("account.signIn.forgot")}</a></p>`,
    reader,
  );
}
