// Accepting an invitation to a shop (CONTRACT 10, "Members"): `/invitation?token=…` from the mailed link shows
// the shop, the address and the role, and asks for the person's name and a password; the POST
// makes the member, uses the link up and signs them in. Registered in the sign-in pages' scope:
// same per-address rate limit, CSRF, 303 after a POST. The token travels in the link's query
// string by necessity; the request log drops query strings and pages send no Referer.
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError } from "../errors.ts";
import {
  acceptInvitation,
  findInvitation,
  InvitationInvalid,
} from "../modules/members/invitations.service.ts";
import type { MemberRow } from "../modules/members/members.service.ts";
import { secondStepDue } from "../modules/members/two-step.service.ts";
import { CSRF_FIELD, csrfToken, rotateCsrfSecret, sendPage } from "../web/browser-scope.ts";
import { field, formOf } from "../web/form.ts";
import { html, layout } from "../web/html.ts";
import { type Reader, readerOf } from "../web/reader.ts";
import { startSession } from "../web/session.ts";
import { messageWith, refusalsIn } from "./message-markup.ts";
import { TWO_STEP_PATH } from "./two-step.routes.ts";

function invitationPage(
  reader: Reader,
  input: {
    csrf: string;
    token: string;
    shopName: string;
    email: string;
    role: "owner" | "staff";
    name?: string;
    error?: string;
  },
): string {
  const { t } = reader;
  const title = t.t("account.invitation.title", { shop: input.shopName });
  const invitedAs = messageWith(
    t,
    "account.invitation.invitedAs",
    {},
    {
      role: html`<strong>${t.t("account.invitation.role", { role: input.role })}</strong>`,
      email: html`<strong>${input.email}</strong>`,
    },
  );
  return layout(
    title,
    html`<h1>${title}</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<p>${invitedAs}</p>
<form method="post" action="/invitation">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<label for="name">${t.t("account.invitation.yourName")}</label>
<input id="name" name="name" autocomplete="name" required maxlength="100" value="${input.name ?? ""}">
<label for="password">${t.t("account.field.password")}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="muted">${t.t("account.field.passwordRule")}</p>
<button type="submit">${t.t("account.invitation.join")}</button>
</form>`,
    reader,
  );
}

function invitationInvalidPage(reader: Reader, message: string): string {
  const { t } = reader;
  return layout(
    t.t("account.invitation.invalidTitle"),
    html`<h1>${t.t("account.invitation.invalidHeading")}</h1>
<p class="error" role="alert">${message}</p>
<p class="muted">${t.t("account.invitation.askAgain")} <a href="/login">${t.t("account.signIn.submit")}</a></p>`,
    reader,
  );
}

/** Why a link is dead, as the services say it in English, in the reader's words. */
const deadLink = (reader: Reader, message: string) =>
  refusalsIn(reader.t, ["account.invitation.noLongerValid", "account.invitation.hasAccount"])(message) ??
  message;

/** A refused name or password: the sentence the page has always shown, in the reader's words. */
const fieldProblem = (reader: Reader, e: { field: string; message: string }) => {
  const english = `${e.field === "name" ? "Your name" : "Password"} ${e.message}.`;
  const keys = ["account.invitation.errors.nameLength", "account.invitation.errors.nameBlank"];
  return refusalsIn(reader.t, [...keys, "account.errors.password"])(english) ?? english;
};

export async function invitationRoutes(
  app: FastifyInstance,
  { ctx, config }: { ctx: ServiceContext; config: Config },
) {
  app.get("/invitation", { schema: { hide: true } }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? "");
    const invitation = await findInvitation(ctx, token);
    const reader = readerOf(request);
    if (!invitation) {
      return sendPage(
        reply,
        400,
        invitationInvalidPage(reader, reader.t.t("account.invitation.noLongerValid")),
      );
    }
    return sendPage(reply, 200, invitationPage(reader, { csrf: csrfToken(reply), token, ...invitation }));
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
        const reader = readerOf(request);
        const invitation = err instanceof InvitationInvalid ? undefined : await findInvitation(ctx, token);
        if (!invitation) {
          return sendPage(
            reply,
            400,
            invitationInvalidPage(
              reader,
              err instanceof InvitationInvalid
                ? deadLink(reader, err.message)
                : reader.t.t("account.invitation.noLongerValid"),
            ),
          );
        }
        const error = err.extra.errors?.map((e) => fieldProblem(reader, e)).join(" ");
        return sendPage(
          reply,
          400,
          invitationPage(reader, {
            csrf: csrfToken(reply),
            token,
            name,
            ...invitation,
            error: error ?? err.message,
          }),
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
