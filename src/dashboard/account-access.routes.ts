// Sign-up (`/signup`, off with SIGNUP_ENABLED=false) and password reset by a one-time link
// (`/reset-password?token=…`, made by `vendor-api vendor reset-password`), CONTRACT 9. Registered
// in the sign-in pages' scope: same per-address rate limit, CSRF on every POST, 303 after a POST.
// The reset token travels in the link's query string by necessity; the page carries it on in a
// hidden field, the request log redacts it (app.ts), and pages send Referrer-Policy: no-referrer.
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError } from "../errors.ts";
import {
  isPasswordResetLive,
  ResetLinkInvalid,
  resetPasswordWithLink,
} from "../modules/vendors/password-reset.service.ts";
import { createVendor } from "../modules/vendors/vendors.service.ts";
import { csrfToken, rotateCsrfSecret, sendPage } from "../web/browser-scope.ts";
import { field, formOf } from "../web/form.ts";
import { startSession } from "../web/session.ts";
import {
  passwordResetDonePage,
  resetLinkInvalidPage,
  resetPasswordPage,
  signUpPage,
} from "./account-access.pages.ts";

const labels: Record<string, string> = { email: "Email", name: "Shop name", token: "The link" };
const fieldMessage = (err: AppError) =>
  err.extra.errors?.map((e) => `${labels[e.field] ?? "Password"} ${e.message}.`).join(" ") ?? err.message;

export async function accountAccessRoutes(
  app: FastifyInstance,
  { ctx, config }: { ctx: ServiceContext; config: Config },
) {
  if (config.signupEnabled) {
    app.get("/signup", { schema: { hide: true } }, async (_request, reply) =>
      sendPage(reply, 200, signUpPage({ csrf: csrfToken(reply) })),
    );
    app.post(
      "/signup",
      { schema: { hide: true }, preHandler: app.csrfProtection },
      async (request, reply) => {
        let name = "";
        let email = "";
        let vendorId: string;
        try {
          const form = formOf(request);
          name = field(form, "name");
          email = field(form, "email");
          const password = field(form, "password");
          if (name.length > 100 || email.length > 320 || password.length > 1024) {
            throw new AppError("validation_failed", "A field is too long.");
          }
          vendorId = (await createVendor(ctx, { name, email, password })).id;
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return sendPage(
            reply,
            400,
            signUpPage({ csrf: csrfToken(reply), name, email, error: fieldMessage(err) }),
          );
        }
        await startSession(ctx, config, request, reply, vendorId);
        rotateCsrfSecret(reply, config);
        return reply.code(303).header("location", "/dashboard").send();
      },
    );
  }

  app.get("/reset-password", { schema: { hide: true } }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? "");
    if (!(await isPasswordResetLive(ctx, token))) return sendPage(reply, 400, resetLinkInvalidPage());
    return sendPage(reply, 200, resetPasswordPage({ csrf: csrfToken(reply), token }));
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
        if (err instanceof ResetLinkInvalid) return sendPage(reply, 400, resetLinkInvalidPage());
        if (!(err instanceof AppError)) throw err;
        return sendPage(
          reply,
          400,
          resetPasswordPage({ csrf: csrfToken(reply), token, error: fieldMessage(err) }),
        );
      }
      return reply.code(303).header("location", "/reset-password/done").send();
    },
  );
  app.get("/reset-password/done", { schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, 200, passwordResetDonePage()),
  );
}
