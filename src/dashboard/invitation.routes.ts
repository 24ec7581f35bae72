// Accepting an invitation to a shop (CONTRACT 10, "Members"): `/invitation?token=…` from the mailed link shows
// the shop, the address and the role, and asks for the person's name and a password; the POST
// makes the member, uses the link up and signs them in. Registered in the sign-in pages' scope:
// same per-address rate limit, CSRF, 303 after a POST. The token travels in the link's query
// string by necessity; the request log drops query strings and pages send no Referer.
import type { FastifyInstance } from "fastify";
import { roleLabels } from "../auth/member-policy.ts";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError } from "../errors.ts";
import {
  acceptInvitation,
  findInvitation,
  INVITATION_NO_LONGER_VALID,
  InvitationInvalid,
} from "../modules/members/invitations.service.ts";
import type { MemberRow } from "../modules/members/members.service.ts";
import { secondStepDue } from "../modules/members/two-step.service.ts";
import { CSRF_FIELD, csrfToken, rotateCsrfSecret, sendPage } from "../web/browser-scope.ts";
import { field, formOf } from "../web/form.ts";
import { html, layout } from "../web/html.ts";
import { startSession } from "../web/session.ts";
import { TWO_STEP_PATH } from "./two-step.routes.ts";

function invitationPage(input: {
  csrf: string;
  token: string;
  shopName: string;
  email: string;
  role: "owner" | "staff";
  name?: string;
  error?: string;
}): string {
  return layout(
    `Join ${input.shopName}`,
    html`<h1>Join ${input.shopName}</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<p>You are invited as <strong>${roleLabels[input.role].toLowerCase()}</strong>. You will sign in as <strong>${input.email}</strong>.</p>
<form method="post" action="/invitation">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<label for="name">Your name</label>
<input id="name" name="name" autocomplete="name" required maxlength="100" value="${input.name ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="muted">At least 10 characters.</p>
<button type="submit">Join the shop</button>
</form>`,
  );
}

function invitationInvalidPage(message: string): string {
  return layout(
    "Invitation no longer valid",
    html`<h1>This invitation is no longer valid</h1>
<p class="error" role="alert">${message}</p>
<p class="muted">Ask the shop's owner to invite you again. Already a member? <a href="/login">Sign in</a></p>`,
  );
}

const invalidMessage = INVITATION_NO_LONGER_VALID;

export async function invitationRoutes(
  app: FastifyInstance,
  { ctx, config }: { ctx: ServiceContext; config: Config },
) {
  app.get("/invitation", { schema: { hide: true } }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? "");
    const invitation = await findInvitation(ctx, token);
    if (!invitation) return sendPage(reply, 400, invitationInvalidPage(invalidMessage));
    return sendPage(reply, 200, invitationPage({ csrf: csrfToken(reply), token, ...invitation }));
  });

  app.post(
    "/invitation",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      let token = "";
      let name = "";
      let member: MemberRow;
      try {
        const form = formOf(request);
        token = field(form, "token");
        name = field(form, "name");
        member = await acceptInvitation(ctx, token, { name, password: field(form, "password") });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const invitation = err instanceof InvitationInvalid ? undefined : await findInvitation(ctx, token);
        if (!invitation) {
          return sendPage(
            reply,
            400,
            invitationInvalidPage(err instanceof InvitationInvalid ? err.message : invalidMessage),
          );
        }
        const error = err.extra.errors
          ?.map((e) => `${e.field === "name" ? "Your name" : "Password"} ${e.message}.`)
          .join(" ");
        return sendPage(
          reply,
          400,
          invitationPage({ csrf: csrfToken(reply), token, name, ...invitation, error: error ?? err.message }),
        );
      }
      // A shop that requires two-step sign-in has its new member set it up first.
      const secondStep = await secondStepDue(ctx, member);
      await startSession(ctx, config, request, reply, member, secondStep ? { secondStep } : {});
      rotateCsrfSecret(reply, config);
      return reply
        .code(303)
        .header("location", secondStep ? `${TWO_STEP_PATH}/setup?return_to=%2Fdashboard` : "/dashboard")
        .send();
    },
  );
}
