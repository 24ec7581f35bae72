// Vendor sign-in and sign-out (CONTRACT 6 and 9): server-rendered, CSRF-protected, throttled per
// address and per account, slow password hash, new session id at every sign-in, form POSTs
// answered with 303, and `return_to` followed only to a same-origin path.
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { verifyMemberCredentials } from "../modules/members/members.service.ts";
import { secondStepDue } from "../modules/members/two-step.service.ts";
import { csrfToken, rotateCsrfSecret, sendPage } from "../web/browser-scope.ts";
import { type Form, field } from "../web/form.ts";
import { readerOf } from "../web/reader.ts";
import { safeReturnTo } from "../web/return-to.ts";
import { endSession, startSession } from "../web/session.ts";
import { signInPage } from "./sign-in.page.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";
import { TWO_STEP_PATH } from "./two-step.routes.ts";

export interface SignInDeps {
  ctx: ServiceContext;
  config: Config;
  throttle: SignInThrottle;
}

export async function signInRoutes(app: FastifyInstance, { ctx, config, throttle }: SignInDeps) {
  app.get("/login", { schema: { hide: true } }, async (request, reply) => {
    const returnTo = safeReturnTo((request.query as Record<string, unknown>).return_to);
    return sendPage(reply, 200, signInPage(readerOf(request), { csrf: csrfToken(reply), returnTo }));
  });

  app.post("/login", { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    // Not formOf: a sign-in answers every unusable credential alike, a NUL included (401 below;
    // verifyMemberCredentials keeps it from any query), so it says nothing about the account.
    const form = (request.body ?? {}) as Form;
    const email = field(form, "email").trim();
    const password = field(form, "password");
    const returnTo = safeReturnTo(field(form, "return_to"));
    const again = (status: number, error: string) =>
      sendPage(
        reply,
        status,
        signInPage(readerOf(request), { csrf: csrfToken(reply), returnTo, email, error }),
      );

    // Reserved before the password is checked, so parallel guesses cannot share one count.
    const reservation = await throttle.reserve(request.ip, email);
    if (!reservation.ok) {
      reply.header("retry-after", String(reservation.retryAfterS));
      return reservation.reason === "throttled"
        ? again(429, "account.signIn.errors.throttled")
        : again(503, "account.signIn.errors.unavailable");
    }
    const member = await verifyMemberCredentials(ctx, email, password);
    // A wrong password: the reservation stays, counted as the failure.
    if (!member) return again(401, "account.signIn.errors.wrong");
    // Two-step sign-in: the password alone opens only the second step's page, and
    // clears no failures: the count is forgotten only when the whole sign-in succeeds, so signing
    // in again with a known password buys no more guesses at the code.
    const secondStep = await secondStepDue(ctx, member);
    if (secondStep) await reservation.attempt.refund();
    else await reservation.attempt.succeeded();
    await startSession(ctx, config, request, reply, member, secondStep ? { secondStep } : {});
    rotateCsrfSecret(reply, config);
    if (secondStep) {
      const next = `${TWO_STEP_PATH}${secondStep === "setup" ? "/setup" : ""}`;
      return reply
        .code(303)
        .header("location", `${next}?${new URLSearchParams({ return_to: returnTo })}`)
        .send();
    }
    return reply.code(303).header("location", returnTo).send();
  });

  app.post("/logout", { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    await endSession(ctx, config, request, reply);
    return reply.code(303).header("location", "/login").send();
  });
}
