// The pages of getting into an account without an operator's help: sign-up, and setting a new
// password from a one-time reset link. Same frame and rules as the sign-in page (sign-in.page.ts).
import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout } from "../web/html.ts";

export function signUpPage(input: { csrf: string; name?: string; email?: string; error?: string }): string {
  return layout(
    "Create your account",
    html`<h1>Create your account</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<form method="post" action="/signup">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<label for="name">Shop name</label>
<input id="name" name="name" autocomplete="organization" required maxlength="100" value="${input.name ?? ""}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${input.email ?? ""}">
<p class="muted">We mail this address a link; you choose your password when you open it.</p>
<button type="submit">Create account</button>
</form>
<p class="muted">Already have an account? <a href="/login">Sign in</a></p>`,
  );
}

export function signUpSentPage(): string {
  return layout(
    "Check your e-mail",
    html`<h1>Check your e-mail</h1>
<p role="status">We sent a message to the address you gave. Open the link in it within a day to confirm the address and choose your password.</p>
<p class="muted">Nothing came? Look in the spam folder, or <a href="/signup">try again</a> in a few minutes.</p>`,
  );
}

export function signupConfirmPage(input: {
  csrf: string;
  token: string;
  name: string;
  email: string;
  error?: string;
}): string {
  return layout(
    "Choose your password",
    html`<h1>Choose your password</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<p>Your address <strong>${input.email}</strong> is confirmed. Choose a password for ${input.name}'s account.</p>
<form method="post" action="/signup/confirm">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="muted">At least 10 characters.</p>
<button type="submit">Create account</button>
</form>`,
  );
}

export function signupLinkInvalidPage(): string {
  return layout(
    "Link not valid",
    html`<h1>Link not valid</h1>
<p class="error" role="alert">This sign-up link was used or has expired.</p>
<p><a href="/signup">Sign up again</a> or <a href="/login">sign in</a>.</p>`,
  );
}

export function resetPasswordPage(input: { csrf: string; token: string; error?: string }): string {
  return layout(
    "Choose a new password",
    html`<h1>Choose a new password</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<form method="post" action="/reset-password">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="muted">At least 10 characters. Every device and connected application will be signed out.</p>
<button type="submit">Set password</button>
</form>`,
  );
}

export function resetLinkInvalidPage(): string {
  return layout(
    "Link not valid",
    html`<h1>Link not valid</h1>
<p class="error" role="alert">This password-reset link was used, replaced by a newer one, or has expired.</p>
<p><a href="/forgot-password">Ask for a new link</a>.</p>`,
  );
}

export function passwordResetDonePage(): string {
  return layout(
    "Password changed",
    html`<h1>Password changed</h1>
<p>Your new password is set, and every earlier session and connected application was signed out.</p>
<p><a href="/login">Sign in</a></p>`,
  );
}
