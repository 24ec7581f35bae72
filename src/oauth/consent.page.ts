import { scopeDescriptions } from "../auth/scopes.ts";
import { CSRF_FIELD } from "../web/browser-scope.ts";
import { html, layout } from "../web/html.ts";
import type { AuthorizationRequest } from "./authorize/index.ts";

export function consentPage(input: {
  request: AuthorizationRequest;
  /** The validated request's parameters, carried back by the form and checked again on POST. */
  params: Record<string, string>;
  vendorName: string;
  /** The shop that registered the application: who the vendor is trusting. */
  publisherName: string;
  csrf: string;
}): string {
  const { request, params } = input;
  const name = request.application.name;
  return layout(
    `Allow ${name}?`,
    html`<h1>Allow ${name} to access your account?</h1>
<p class="publisher"><strong>${name}</strong> is published by <strong>${input.publisherName}</strong>.</p>
<p>You are signed in as <strong>${input.vendorName}</strong>. <strong>${name}</strong> asks to:</p>
<ul class="scopes">${request.scopes.map((s) => html`<li>${scopeDescriptions[s]} <span class="muted">(${s})</span></li>`)}</ul>
<p class="muted">After you decide, you will be sent back to ${new URL(request.redirectUri).origin}.</p>
<form method="post" action="/api/oauth/authorize">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
${Object.entries(params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}
