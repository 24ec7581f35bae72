// "Forgot password?" (CONTRACT 10): /forgot-password takes an e-mail and answers 303 to the same
// page whether or not it is an account's, and before it looks the address up, so neither the page
// nor its timing tells anybody which addresses exist. Limits:
// per client address (past it, 429 with Retry-After: a flood is refused, whatever the address it
// names) and per account address (past it, no more links are mailed to it, and the answer is
// still the same: nobody can fill an inbox with reset mail). Registered in the sign-in pages'
// scope: CSRF on the POST, the per-address request limit of the sign-in pages.
import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../context.ts";
import { addressKey, consume } from "../http/rate-limit.ts";
import { hashSecret } from "../lib/crypto.ts";
import { requestPasswordReset } from "../modules/members/forgot-password.service.ts";
import { csrfToken, sendPage } from "../web/browser-scope.ts";
import { type Form, field } from "../web/form.ts";
import { readerOf } from "../web/reader.ts";
import { forgotPasswordPage, resetLinkSentPage } from "./forgot-password.pages.ts";

/** Requests from one client address in 15 minutes. */
export const FORGOT_PASSWORD_PER_ADDRESS = { policy: "forgot-password", max: 10, windowMs: 15 * 60_000 };
/** Links mailed to one account address in an hour. */
export const RESET_MAILS_PER_ACCOUNT = { policy: "reset-mail", max: 3, windowMs: 60 * 60_000 };

/** A rate-limit key for an e-mail address: normalised, hashed (the store keeps no address). */
export const mailboxKey = (email: string) => `m:${hashSecret(email.trim().toLowerCase())}`;

export async function forgotPasswordRoutes(app: FastifyInstance, { ctx }: { ctx: ServiceContext }) {
  app.get("/forgot-password", { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 200, forgotPasswordPage(readerOf(request), { csrf: csrfToken(reply) })),
  );

  app.post(
    "/forgot-password",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      const email = field(form, "email").trim();
      const usage = await consume(app.rateLimitStore, FORGOT_PASSWORD_PER_ADDRESS, addressKey(request));
      if (usage?.exceeded) {
        reply.header("retry-after", String(usage.resetS));
        return sendPage(
          reply,
          429,
          forgotPasswordPage(readerOf(request), {
            csrf: csrfToken(reply),
            email,
            error: readerOf(request).t.t("account.forgot.tooMany"),
          }),
        );
      }
      const mailbox = await consume(app.rateLimitStore, RESET_MAILS_PER_ACCOUNT, mailboxKey(email));
      // Answered before the address is looked up, so the answer's time cannot tell a member's
      // address from any other (a member's took ~10 ms more: the link and its mail are written).
      // The link is written right after, in one statement (forgot-password.service.ts); one lost
      // to a crash in between is asked for again, as the page says.
      reply.code(303).header("location", "/forgot-password/sent").send();
      if (!mailbox?.exceeded) {
        await requestPasswordReset(ctx, email).catch((err: unknown) =>
          request.log.error({ err }, "forgot password: the reset link could not be written"),
        );
      }
      return reply;
    },
  );

  app.get("/forgot-password/sent", { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 200, resetLinkSentPage(readerOf(request))),
  );
}
