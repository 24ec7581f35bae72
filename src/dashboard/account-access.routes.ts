// Sign-up (`/signup`, off with SIGNUP_ENABLED=false; the address confirmed by a mailed link,
// CONTRACT 10) and password reset by a one-time link (`/reset-password?token=…`, mailed from
// /forgot-password or made by `vendor-api vendor reset-password`), CONTRACT 9. Registered
// in the sign-in pages' scope: same per-address rate limit, CSRF on every POST, 303 after a POST.
// The reset token travels in the link's query string by necessity; the page carries it on in a
// hidden field, the request log redacts it (app.ts), and pages send Referrer-Policy: no-referrer.
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError } from "../errors.ts";
import { addressKey, consume } from "../http/rate-limit.ts";
import { isLanguage } from "../i18n/languages.ts";
import {
  isPasswordResetLive,
  ResetLinkInvalid,
  resetPasswordWithLink,
} from "../modules/members/password-reset.service.ts";
import {
  checkSignupInput,
  confirmSignup,
  findPendingSignup,
  requestSignup,
  SignupLinkInvalid,
} from "../modules/use-cases/signup.service.ts";
import { allowOwnScripts, csrfToken, rotateCsrfSecret, sendPage } from "../web/browser-scope.ts";
import { field, formOf } from "../web/form.ts";
import { type Reader, readerOf, visitorLanguage } from "../web/reader.ts";
import { startSession } from "../web/session.ts";
import {
  passwordResetDonePage,
  resetLinkInvalidPage,
  resetPasswordPage,
  signUpPage,
  signUpSentPage,
  signupConfirmPage,
  signupLinkInvalidPage,
} from "./account-access.pages.ts";
import { mailboxKey } from "./forgot-password.routes.ts";

/**
 * Sign-up mails (confirmation links or "already registered" notes) in an hour: to one e-mail
 * address (SIGNUP_MAILS_PER_ADDRESS), so nobody fills an inbox, and from one client address
 * (SIGNUP_MAILS_PER_CLIENT), so nobody sends a shop name of their choosing to many inboxes.
 * Past either the form answers exactly as before and mails nothing: the answer tells nothing.
 */
const signupMailBudgets = (config: Config) => ({
  perAddress: { policy: "signup-mail", max: config.signupMailsPerAddress, windowMs: 60 * 60_000 },
  perClient: { policy: "signup-mail-client", max: config.signupMailsPerClient, windowMs: 60 * 60_000 },
});

/** The refused fields of a form, each said in the reader's words (the service's are English). */
const fieldMessage = (reader: Reader, err: AppError) => {
  const fields = err.extra.errors?.map((e) => e.field) ?? ["token"];
  return fields
    .map((f) => reader.t.t(`account.errors.${["email", "name", "token"].includes(f) ? f : "password"}`))
    .join(" ");
};

export async function accountAccessRoutes(
  app: FastifyInstance,
  { ctx, config }: { ctx: ServiceContext; config: Config },
) {
  if (config.signupEnabled) {
    const budgets = signupMailBudgets(config);
    // The shop's language: the browser's, unless the visitor picks another.
    app.get("/signup", { schema: { hide: true } }, async (request, reply) =>
      sendPage(
        reply,
        200,
        signUpPage(readerOf(request), { csrf: csrfToken(reply), language: visitorLanguage(request) }),
      ),
    );
    // The same answer, in about the same time, for a new and a registered address (signup.service.ts).
    app.post(
      "/signup",
      { schema: { hide: true }, preHandler: app.csrfProtection },
      async (request, reply) => {
        let name = "";
        let email = "";
        let language = visitorLanguage(request);
        try {
          const form = formOf(request);
          name = field(form, "name");
          email = field(form, "email");
          // A language we do not speak (a forged form) is the browser's.
          if (isLanguage(field(form, "language"))) language = field(form, "language");
          const input = checkSignupInput({ name, email, language });
          const [mailbox, client] = await Promise.all([
            consume(app.rateLimitStore, budgets.perAddress, mailboxKey(input.email)),
            consume(app.rateLimitStore, budgets.perClient, addressKey(request)),
          ]);
          await requestSignup(ctx, input, { mail: !mailbox?.exceeded && !client?.exceeded });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return sendPage(
            reply,
            400,
            signUpPage(readerOf(request), {
              csrf: csrfToken(reply),
              name,
              email,
              language,
              error: fieldMessage(readerOf(request), err),
            }),
          );
        }
        return reply.code(303).header("location", "/signup/sent").send();
      },
    );
    app.get("/signup/sent", { schema: { hide: true } }, async (request, reply) =>
      sendPage(reply, 200, signUpSentPage(readerOf(request))),
    );
    app.get("/signup/confirm", { schema: { hide: true } }, async (request, reply) => {
      const token = String((request.query as Record<string, unknown>).token ?? "");
      const pending = await findPendingSignup(ctx, token);
      if (!pending) return sendPage(reply, 400, signupLinkInvalidPage(readerOf(request)));
      allowOwnScripts(reply);
      return sendPage(
        reply,
        200,
        signupConfirmPage(readerOf(request), { csrf: csrfToken(reply), token, ...pending }),
      );
    });
    app.post(
      "/signup/confirm",
      { schema: { hide: true }, preHandler: app.csrfProtection },
      async (request, reply) => {
        let token = "";
        let timeZone = "";
        let owner: { id: string; vendorId: string };
        try {
          const form = formOf(request);
          token = field(form, "token");
          timeZone = field(form, "timeZone");
          const vendor = await confirmSignup(ctx, token, field(form, "password"), {
            ...(timeZone ? { timeZone } : {}),
          });
          owner = { id: vendor.ownerId, vendorId: vendor.id };
        } catch (err) {
          if (err instanceof SignupLinkInvalid)
            return sendPage(reply, 400, signupLinkInvalidPage(readerOf(request)));
          if (!(err instanceof AppError)) throw err;
          const pending = await findPendingSignup(ctx, token);
          if (!pending) return sendPage(reply, 400, signupLinkInvalidPage(readerOf(request)));
          allowOwnScripts(reply);
          return sendPage(
            reply,
            400,
            signupConfirmPage(readerOf(request), {
              csrf: csrfToken(reply),
              token,
              timeZone,
              ...pending,
              error: fieldMessage(readerOf(request), err),
            }),
          );
        }
        await startSession(ctx, config, request, reply, owner);
        rotateCsrfSecret(reply, config);
        return reply.code(303).header("location", "/dashboard").send();
      },
    );
  }

  app.get("/reset-password", { schema: { hide: true } }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? "");
    if (!(await isPasswordResetLive(ctx, token)))
      return sendPage(reply, 400, resetLinkInvalidPage(readerOf(request)));
    return sendPage(reply, 200, resetPasswordPage(readerOf(request), { csrf: csrfToken(reply), token }));
  });
  app.post(
    "/reset-password",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      let token = "";
      try {
        const form = formOf(request);
        token = field(form, "token");
        await resetPasswordWithLink(ctx, token, field(form, "password"));
      } catch (err) {
        if (err instanceof ResetLinkInvalid)
          return sendPage(reply, 400, resetLinkInvalidPage(readerOf(request)));
        if (!(err instanceof AppError)) throw err;
        return sendPage(
          reply,
          400,
          resetPasswordPage(readerOf(request), {
            csrf: csrfToken(reply),
            token,
            error: fieldMessage(readerOf(request), err),
          }),
        );
      }
      return reply.code(303).header("location", "/reset-password/done").send();
    },
  );
  app.get("/reset-password/done", { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 200, passwordResetDonePage(readerOf(request))),
  );
}
