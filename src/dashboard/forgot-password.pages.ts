// The pages of "Forgot password?": ask for a link, and the answer, which is the same whether or
// not the address has an account. Same frame and rules as the sign-in page.
import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout } from "../web/html.ts";

export function forgotPasswordPage(input: { csrf: string; email?: string; error?: string }): string {
  return layout(
    "Forgot your password?",
    html`<h1>Forgot your password?</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<p>Type the e-mail you sign in with. If it belongs to an account, we mail it a link to choose a new password.</p>
<form method="post" action="/forgot-password">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${input.email ?? ""}">
<button type="submit">Mail me a link</button>
</form>
<p class="muted"><a href="/login">Back to sign-in</a></p>`,
  );
}

export function resetLinkSentPage(): string {
  return layout(
    "Check your e-mail",
    html`<h1>Check your e-mail</h1>
<p role="status">If the address belongs to an account, a link to choose a new password is on its way. It works once, for one hour.</p>
<p class="muted">Nothing came? Look in the spam folder, or <a href="/forgot-password">ask again</a> in a few minutes.</p>
<p><a href="/login">Back to sign-in</a></p>`,
  );
}
