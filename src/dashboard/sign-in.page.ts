import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout } from "../web/html.ts";

export function signInPage(input: {
  csrf: string;
  returnTo: string;
  email?: string;
  error?: string;
}): string {
  return layout(
    "Sign in",
    html`<h1>Sign in</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<form method="post" action="/login">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="return_to" value="${input.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted"><a href="/forgot-password">Forgot password?</a></p>`,
  );
}
