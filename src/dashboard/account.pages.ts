// Account: the member's own name, and change the password (current + new + confirm). Changing it revokes every OAuth grant
// and signs out every OTHER session; this browser stays signed in. Sign-out is the header form.

import type { FastifyInstance } from "fastify";
import { baseLanguage, pseudoLocale } from "../i18n/languages.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import { DISPLAY_NAME_RULE } from "../lib/display-name.ts";
import { changeMemberPassword, renameMember } from "../modules/members/members.service.ts";
import {
  confirmTwoStepSetup,
  pendingTwoStepSetup,
  turnOffTwoStep,
  twoStepKey,
  twoStepStatus,
} from "../modules/members/two-step.service.ts";
import { memberLanguages, setMemberLanguage } from "../modules/vendors/shop-language.ts";
import { csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { html } from "../web/html.ts";
import { readerOf, translatorFor } from "../web/reader.ts";
import { ReaderRefusal } from "../web/refusal.ts";
import { languageOptions } from "./account-access.pages.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage } from "./layout.ts";
import { refusalsIn, sayingRefusals } from "./message-markup.ts";
import { memberOf, pageContext, vendorIdOf } from "./page-context.ts";
import { withThrottledSecret } from "./throttled-check.ts";
import { qrSvg, setupInstructions } from "./two-step.routes.ts";

const BASE = "/dashboard/account";

const english = translator(baseLanguage);

/** The two-step refusals of the services and the sign-in throttle, in the reader's words. */
function twoStepRefusals(t: Translator): (message: string) => string | undefined {
  const keys = ["wrongCode", "noSetup", "alreadyOn", "wrongPassword", "shopRequires", "unavailable"];
  const fixed = refusalsIn(
    t,
    keys.map((k) => `account.twoStep.errors.${k}`),
  );
  return (message) => {
    const minutes = Number(/\d+/.exec(message)?.[0]);
    const key = "account.twoStep.errors.tooManyPasswords";
    if (Number.isInteger(minutes) && english.t(key, { minutes }) === message) return t.t(key, { minutes });
    return fixed(message);
  };
}

/**
 * The refusals of renaming oneself and changing one's password (the members service's, in English
 * for the API), as a person reads them: a sentence in their language, English included.
 */
function accountRefusals(t: Translator): (message: string) => string | undefined {
  const twoStep = twoStepRefusals(t);
  return (message) => {
    const say = (key: string, values?: Record<string, string>) => t.t(`refusals.account.${key}`, values);
    if (message === "currentPassword is not the current password") return say("currentPasswordWrong");
    const length = /^newPassword must be (\d+)-(\d+) characters$/.exec(message);
    if (length) return say("passwordLength", { min: length[1] ?? "", max: length[2] ?? "" });
    const name = /^name must be 1-(\d+) characters$/.exec(message);
    if (name) return say("nameLength", { max: name[1] ?? "" });
    if (message === `name ${DISPLAY_NAME_RULE}`) return say("nameBlank");
    return twoStep(message);
  };
}

export async function accountPages(
  app: FastifyInstance,
  { ctx, config, throttle }: DashboardDeps,
): Promise<void> {
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const me = memberOf(request);
    const [twoStep, languages] = await Promise.all([
      twoStepStatus(ctx, vendorIdOf(request), me.id),
      memberLanguages(ctx, vendorIdOf(request), me.id),
    ]);
    const twoStepSection = twoStep.enabled
      ? html`<p>${t.t("dashboard.account.twoStepOn", { left: twoStep.recoveryCodesLeft })}</p>
${
  twoStep.shopRequires
    ? html`<p class="muted">${t.t("dashboard.account.twoStepRequired")}</p>`
    : html`<form method="post" action="${BASE}/two-step/off">${csrfField(page.csrf)}
<label for="off-password">${t.t("dashboard.account.offPassword")}</label><input id="off-password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="danger">${t.t("dashboard.account.turnOff")}</button></div>
</form>`
}`
      : html`<p>${t.t("dashboard.account.twoStepOff")}</p>
<p><a class="button primary" href="${BASE}/two-step">${t.t("dashboard.account.setUp")}</a></p>`;
    const shopName = translator(languages.shop).t("language.name");
    const pseudo = request.readerSettings?.pseudoLocale
      ? html`<option value="${pseudoLocale}"${languages.member === pseudoLocale ? html` selected` : ""}>${t.t("dashboard.account.pseudo")}</option>`
      : "";
    const body = html`<p>${t.t("dashboard.account.signedInAs", { email: me.email, role: me.role })}</p>
<h2>${t.t("dashboard.account.yourName")}</h2>
<form method="post" action="${BASE}/name">${csrfField(page.csrf)}
<label for="member-name">${t.t("dashboard.account.nameLabel")}</label><input id="member-name" name="name" autocomplete="name" required maxlength="100" value="${me.name === me.email ? "" : me.name}">
<div class="actions"><button type="submit">${t.t("dashboard.account.saveName")}</button></div>
</form>
<h2>${t.t("dashboard.account.language")}</h2>
<form method="post" action="${BASE}/language">${csrfField(page.csrf)}
<label for="member-language">${t.t("dashboard.account.languageLabel")}</label>
<select id="member-language" name="language"><option value=""${languages.member === null ? html` selected` : ""}>${t.t("dashboard.account.shopLanguage", { language: shopName })}</option>${languageOptions(languages.member ?? "")}${pseudo}</select>
<div class="actions"><button type="submit">${t.t("dashboard.account.saveLanguage")}</button></div>
</form>
<h2>${t.t("dashboard.account.changePassword")}</h2>
<p class="muted">${t.t("dashboard.account.passwordHint")}</p>
<form method="post" action="${BASE}/password">${csrfField(page.csrf)}
<label for="current">${t.t("dashboard.account.current")}</label><input id="current" name="currentPassword" type="password" autocomplete="current-password" required>
<label for="new">${t.t("dashboard.account.new")}</label><input id="new" name="newPassword" type="password" autocomplete="new-password" minlength="10" required>
<label for="confirm">${t.t("dashboard.account.repeat")}</label><input id="confirm" name="confirmPassword" type="password" autocomplete="new-password" minlength="10" required>
<div class="actions"><button type="submit" class="primary">${t.t("dashboard.account.changePassword")}</button></div>
</form>
<h2>${t.t("dashboard.account.twoStep")}</h2>
${twoStepSection}
<h2>${t.t("dashboard.nav.signOut")}</h2>
<form method="post" action="/logout">${csrfField(page.csrf)}<button type="submit">${t.t("dashboard.account.signOutHere")}</button></form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "account", t.t("dashboard.nav.account"), body));
  });

  app.post(
    `${BASE}/language`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        const language = field(form, "language");
        await setMemberLanguage(ctx, vendorIdOf(request), memberOf(request).id, language, {
          allowPseudo: request.readerSettings?.pseudoLocale ?? false,
        });
        const now = await memberLanguages(ctx, vendorIdOf(request), memberOf(request).id);
        const { t } = translatorFor(request, now.member ?? now.shop);
        return { kind: "success", message: t.t("dashboard.account.languageSaved") };
      }),
  );

  const key = twoStepKey(config.sessionSecret);
  app.get(`${BASE}/two-step`, { schema: { hide: true } }, async (request, reply) => {
    const setup = await pendingTwoStepSetup(
      ctx,
      key,
      vendorIdOf(request),
      memberOf(request).id,
      config.productName,
    );
    if (!setup) return reply.code(303).header("location", BASE).send();
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const body = html`${setupInstructions(t, await qrSvg(setup.uri), setup.secret)}
<form method="post" action="${BASE}/two-step">${csrfField(page.csrf)}
<label for="code">${t.t("account.twoStep.codeLabel")}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="6">
<div class="actions"><button type="submit" class="primary">${t.t("account.twoStep.turnOn")}</button><a class="button" href="${BASE}">${t.t("account.twoStep.notNow")}</a></div>
</form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "account", t.t("account.twoStep.setupTitle"), body));
  });

  app.post(
    `${BASE}/two-step`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE, back: `${BASE}/two-step` }, async (form) => {
        const { t } = readerOf(request);
        const codes = await sayingRefusals(twoStepRefusals(t), () =>
          confirmTwoStepSetup(
            ctx,
            key,
            vendorIdOf(request),
            memberOf(request).id,
            field(form, "code"),
            request.dashboardSession?.sessionId,
          ),
        );
        return {
          kind: "success",
          message: t.t("account.twoStep.onHere"),
          secret: codes.join("  "),
        };
      }),
  );

  app.post(
    `${BASE}/two-step/off`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        const me = memberOf(request);
        const { t } = readerOf(request);
        await sayingRefusals(twoStepRefusals(t), () =>
          withThrottledSecret(throttle, { address: request.ip, account: me.email }, "password", () =>
            turnOffTwoStep(ctx, vendorIdOf(request), me.id, field(form, "password")),
          ),
        );
        return { kind: "success", message: t.t("account.twoStep.off") };
      }),
  );

  app.post(
    `${BASE}/name`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        const { t } = readerOf(request);
        await sayingRefusals(accountRefusals(t), () =>
          renameMember(ctx, vendorIdOf(request), memberOf(request).id, field(form, "name")),
        );
        return { kind: "success", message: t.t("dashboard.account.nameSaved") };
      }),
  );

  app.post(
    `${BASE}/password`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const session = request.dashboardSession;
      return runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        if (!session) throw new Error("account page without a session");
        const { t } = readerOf(request);
        const newPassword = field(form, "newPassword");
        if (newPassword !== field(form, "confirmPassword")) {
          const message = t.t("refusals.account.passwordMismatch");
          throw new ReaderRefusal("validation_failed", message, {
            errors: [{ field: "confirmPassword", message }],
          });
        }
        const who = { address: request.ip, account: session.member.email };
        await sayingRefusals(accountRefusals(t), () =>
          withThrottledSecret(throttle, who, "currentPassword", () =>
            changeMemberPassword(
              ctx,
              session.vendorId,
              session.member.id,
              { currentPassword: field(form, "currentPassword"), newPassword },
              { keepSessionId: session.sessionId },
            ),
          ),
        );
        return { kind: "success", message: t.t("dashboard.account.passwordChanged") };
      });
    },
  );
}
