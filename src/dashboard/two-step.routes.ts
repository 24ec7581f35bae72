// The second step of signing in (TOTP, RFC 6238), after a right password: `/login/two-step` asks for
// the authenticator's code (or a recovery code); `/login/two-step/setup` is where a member of a
// shop that requires two-step sign-in sets it up before going on. Registered in the sign-in
// pages' scope (rate limit, CSRF, 303 after a POST); wrong codes count against the address and
// the account in the sign-in throttle, as wrong passwords do, and against the pending sign-in
// itself: it takes SECOND_STEP_GUESSES codes, from whatever addresses, then the password is asked
// again. Both counts are taken before the code is checked, so parallel guesses cannot share one.
// Success starts a new session (a new id, no second step due) and goes where the sign-in was going.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type QRCode from "qrcode";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import {
  confirmTwoStepSetup,
  pendingTwoStepSetup,
  twoStepKey,
  verifySecondStep,
} from "../modules/members/two-step.service.ts";
import type { PendingSignIn } from "../modules/sessions/sessions.service.ts";
import { reserveSecondStepGuess } from "../modules/sessions/sessions.service.ts";
import { CSRF_FIELD, csrfToken, rotateCsrfSecret, sendPage } from "../web/browser-scope.ts";
import { setFlash } from "../web/flash.ts";
import { type Form, field } from "../web/form.ts";
import { html, layout, SafeHtml } from "../web/html.ts";
import { type Reader, readerOf, translatorFor } from "../web/reader.ts";
import { safeReturnTo } from "../web/return-to.ts";
import { endSession, pendingSignIn, startSession } from "../web/session.ts";
import { signInPage } from "./sign-in.page.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";

export const TWO_STEP_PATH = "/login/two-step";

// qrcode (57 modules with pngjs, ~40 ms) is loaded at the first setup, not at every start
// (docs/decisions/0016).
let qrcode: Promise<typeof QRCode> | undefined;

/** The QR code of an otpauth URI as inline SVG (no image request, nothing for the CSP to allow). */
export async function qrSvg(uri: string): Promise<SafeHtml> {
  qrcode ??= import("qrcode").then((m) => m.default);
  const code = await qrcode;
  return new SafeHtml(await code.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" }));
}

/** What the authenticator needs: the QR code, and the key to type when the camera cannot be used. */
export function setupInstructions(t: Translator, svg: SafeHtml, secret: string): SafeHtml {
  return html`<p>${t.t("account.twoStep.scan")}</p>
<div class="qr" style="max-width:14rem">${svg}</div>
<p class="muted">${t.t("account.twoStep.cannotScan")} <code class="secret-key">${secret.replace(/(.{4})/g, "$1 ").trim()}</code></p>`;
}

/**
 * Who reads the second step: the member the password named, in their dashboard language (their
 * own, else the shop's), though the browser is not signed in yet.
 */
function readerOfPending(request: FastifyRequest, pending: PendingSignIn): Reader {
  return { ...readerOf(request), t: translatorFor(request, pending.member.language).t };
}

function codePage(reader: Reader, input: { csrf: string; returnTo: string; error?: string }): string {
  const { t } = reader;
  return layout(
    t.t("account.twoStep.title"),
    html`<h1>${t.t("account.twoStep.title")}</h1>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
<form method="post" action="${TWO_STEP_PATH}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="return_to" value="${input.returnTo}">
<label for="code">${t.t("account.twoStep.codeLabel")}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="64">
<p class="muted">${t.t("account.twoStep.lostPhone")}</p>
<button type="submit">${t.t("account.twoStep.continue")}</button>
</form>`,
    reader,
  );
}

function setupPage(
  reader: Reader,
  input: {
    csrf: string;
    returnTo: string;
    svg: SafeHtml;
    secret: string;
    error?: string;
  },
): string {
  const { t } = reader;
  return layout(
    t.t("account.twoStep.setupTitle"),
    html`<h1>${t.t("account.twoStep.setupTitle")}</h1>
<p>${t.t("account.twoStep.shopAsks")}</p>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
${setupInstructions(t, input.svg, input.secret)}
<form method="post" action="${TWO_STEP_PATH}/setup">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="return_to" value="${input.returnTo}">
<label for="code">${t.t("account.twoStep.codeLabel")}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="6">
<button type="submit">${t.t("account.twoStep.turnOnContinue")}</button>
</form>`,
    reader,
  );
}

export async function twoStepRoutes(
  app: FastifyInstance,
  { ctx, config, throttle }: { ctx: ServiceContext; config: Config; throttle: SignInThrottle },
) {
  const key = twoStepKey(config.sessionSecret);
  const issuer = config.productName;
  const returnToOf = (request: FastifyRequest) =>
    safeReturnTo((request.query as Record<string, unknown>).return_to);
  const backToSignIn = (reply: FastifyReply) => reply.code(303).header("location", "/login").send();

  app.get(TWO_STEP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const pending = await pendingSignIn(ctx, request);
    if (pending?.secondStep !== "code") return backToSignIn(reply);
    const page = codePage(readerOfPending(request, pending), {
      csrf: csrfToken(reply),
      returnTo: returnToOf(request),
    });
    return sendPage(reply, 200, page);
  });

  app.post(
    TWO_STEP_PATH,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const pending = await pendingSignIn(ctx, request);
      if (pending?.secondStep !== "code") return backToSignIn(reply);
      const form = (request.body ?? {}) as Form;
      const returnTo = safeReturnTo(field(form, "return_to"));
      const email = pending.member.email;
      const reader = readerOfPending(request, pending);
      const { t } = reader;
      const reservation = await throttle.reserve(request.ip, email);
      if (!reservation.ok) {
        reply.header("retry-after", String(reservation.retryAfterS));
        const error =
          reservation.reason === "throttled"
            ? t.t("account.signIn.errors.tooManyCodes")
            : t.t("account.signIn.errors.unavailable");
        const status = reservation.reason === "throttled" ? 429 : 503;
        return sendPage(reply, status, codePage(reader, { csrf: csrfToken(reply), returnTo, error }));
      }
      // The pending sign-in's own count: the guesses it has are spent, then it is void.
      const passwordAgain = async () => {
        await endSession(ctx, config, request, reply);
        const error = "account.signIn.errors.passwordAgain";
        return sendPage(
          reply,
          401,
          signInPage(readerOf(request), { csrf: csrfToken(reply), returnTo, email, error }),
        );
      };
      const guess = await reserveSecondStepGuess(ctx, pending);
      if (!guess) {
        await reservation.attempt.refund(); // no code was checked
        return passwordAgain();
      }
      if (!(await verifySecondStep(ctx, key, pending.vendorId, pending.member.id, field(form, "code")))) {
        // Both reservations stay, counted as this failure.
        if (guess.left === 0) return passwordAgain();
        const error = t.t("account.signIn.errors.wrongCode");
        return sendPage(reply, 401, codePage(reader, { csrf: csrfToken(reply), returnTo, error }));
      }
      await reservation.attempt.succeeded();
      await startSession(ctx, config, request, reply, { id: pending.member.id, vendorId: pending.vendorId });
      rotateCsrfSecret(reply, config);
      return reply.code(303).header("location", returnTo).send();
    },
  );

  app.get(`${TWO_STEP_PATH}/setup`, { schema: { hide: true } }, async (request, reply) => {
    const pending = await pendingSignIn(ctx, request);
    if (pending?.secondStep !== "setup") return backToSignIn(reply);
    const setup = await pendingTwoStepSetup(ctx, key, pending.vendorId, pending.member.id, issuer);
    if (!setup) return backToSignIn(reply);
    const page = setupPage(readerOfPending(request, pending), {
      csrf: csrfToken(reply),
      returnTo: returnToOf(request),
      svg: await qrSvg(setup.uri),
      secret: setup.secret,
    });
    return sendPage(reply, 200, page);
  });

  app.post(
    `${TWO_STEP_PATH}/setup`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const pending = await pendingSignIn(ctx, request);
      if (pending?.secondStep !== "setup") return backToSignIn(reply);
      const form = (request.body ?? {}) as Form;
      const returnTo = safeReturnTo(field(form, "return_to"));
      let codes: string[];
      try {
        codes = await confirmTwoStepSetup(
          ctx,
          key,
          pending.vendorId,
          pending.member.id,
          field(form, "code"),
          pending.sessionId,
        );
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const setup = await pendingTwoStepSetup(ctx, key, pending.vendorId, pending.member.id, issuer);
        if (!setup) {
          await endSession(ctx, config, request, reply);
          return backToSignIn(reply);
        }
        const reader = readerOfPending(request, pending);
        const error = reader.t.t("account.twoStep.setupWrong");
        const page = setupPage(reader, {
          csrf: csrfToken(reply),
          returnTo,
          svg: await qrSvg(setup.uri),
          secret: setup.secret,
          error,
        });
        return sendPage(reply, 400, page);
      }
      // Signed in; the recovery codes wait, sealed, for the account page, which shows them once.
      await startSession(
        ctx,
        config,
        request,
        reply,
        { id: pending.member.id, vendorId: pending.vendorId },
        {
          keepForNextPage: codes.join("  "),
        },
      );
      rotateCsrfSecret(reply, config);
      setFlash(reply, config, {
        kind: "success",
        message: readerOfPending(request, pending).t.t("account.twoStep.onAtSignIn"),
        secretKept: true,
      });
      return reply.code(303).header("location", "/dashboard/account").send();
    },
  );
}
