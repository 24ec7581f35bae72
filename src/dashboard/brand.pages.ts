// Settings, owners only (src/auth/member-policy.ts "settings", the hook of its page group): the
// shop's language and brand (/dashboard/settings/brand), and the shop's own wording of each kind
// of customer mail in each language (/dashboard/settings/mail?kind=&language=): a subject and an
// opening paragraph in plain text with the kind's placeholders, a preview rendered by the very
// template that sends the mail, and a reset to the default. An unknown placeholder is refused
// with its name (400, the form shown again with the error beside the field).
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError, type FieldError } from "../errors.ts";
import { baseLanguage, languages } from "../i18n/languages.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import type { RenderedMail } from "../mail/template.ts";
import { appointmentCancelledMail, appointmentConfirmedMail } from "../mail/templates/appointment.ts";
import { orderStatusMail } from "../mail/templates/customer.ts";
import {
  defaultWording,
  type WordedKind,
  type Wording,
  wordedKinds,
  wordingPlaceholders,
} from "../mail/wording.ts";
import {
  resetWording,
  saveWording,
  shopWordings,
  wordingErrors,
  wordingTarget,
} from "../modules/vendors/mail-wording.service.ts";
import { getShopBrand, type ShopBrand, updateShopBrand } from "../modules/vendors/shop-brand.ts";
import { csrfField, sendPage } from "../web/browser-scope.ts";
import { field, formOf } from "../web/form.ts";
import { runAction, saveForm } from "../web/form-actions.ts";
import { inputField, selectField, textareaField } from "../web/form-fields.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { readerOf } from "../web/reader.ts";
import { ReaderRefusal } from "../web/refusal.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, type PageContext } from "./layout.ts";
import { pageContext, vendorIdOf } from "./page-context.ts";

const BRAND = "/dashboard/settings/brand";
const MAIL = "/dashboard/settings/mail";

const languageName = (language: string) => translator(language).t("language.name");

export async function brandPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;

  app.get(BRAND, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const shop = await getShopBrand(ctx, vendorIdOf(request));
    const wordings = await shopWordings(ctx, vendorIdOf(request));
    return send(reply, 200, page, brandBody(page, shop, wordings));
  });

  app.post(BRAND, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) =>
    runAction(reply, { ctx, config }, { done: BRAND }, async (form) => {
      await namingTheField(readerOf(request).t, () =>
        updateShopBrand(ctx, vendorIdOf(request), {
          language: field(form, "language"),
          logoUrl: field(form, "logoUrl"),
          accentColor: field(form, "accentColor"),
          address: field(form, "address"),
          phone: field(form, "phone"),
          signature: field(form, "signature"),
        }),
      );
      return { kind: "success", message: readerOf(request).t.t("mail.settings.saved") };
    }),
  );

  app.get(MAIL, { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const target = wordingTarget(String(query.kind ?? ""), String(query.language ?? ""));
    const page = await pageContext(ctx, request, reply);
    const shop = await getShopBrand(ctx, vendorIdOf(request));
    const saved = (await shopWordings(ctx, vendorIdOf(request))).get(`${target.kind}/${target.language}`);
    const standard = defaultWording(target.kind, target.language);
    const values = {
      subject: saved?.subject ?? standard.subject,
      opening: saved?.opening ?? standard.opening,
    };
    return send(reply, 200, page, editorBody(page, shop, target, values, [], saved !== undefined));
  });

  app.post(MAIL, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const form = formOf(request);
    const target = wordingTarget(field(form, "kind"), field(form, "language"));
    const vendorId = vendorIdOf(request);
    const shop = await getShopBrand(ctx, vendorId);
    // The member reads the page and its messages in their language; the wording is the mail's.
    const { t } = readerOf(request);
    const back = `${MAIL}?kind=${target.kind}&language=${target.language}`;
    if (field(form, "action") === "reset") {
      return runAction(reply, { ctx, config }, { done: back }, async () => {
        await resetWording(ctx, vendorId, target);
        return { kind: "success", message: t.t("mail.editor.resetDone") };
      });
    }
    const values = { subject: field(form, "subject"), opening: field(form, "opening") };
    const errors = wordingErrors(target.kind, values).map((e) => localized(t, target.kind, e));
    const showAgain = async (status: number, errs: FieldError[]) => {
      const page = await pageContext(ctx, request, reply);
      const saved = (await shopWordings(ctx, vendorId)).has(`${target.kind}/${target.language}`);
      return send(reply, status, page, editorBody(page, shop, target, values, errs, saved));
    };
    if (field(form, "action") === "preview") return showAgain(errors.length > 0 ? 400 : 200, errors);
    return saveForm(
      reply,
      config,
      errors,
      async () => {
        await saveWording(ctx, vendorId, target, values);
        return { message: t.t("mail.editor.saved"), location: back };
      },
      showAgain,
    );
  });
}

const brandFields = ["language", "logoUrl", "accentColor", "address", "phone", "signature"] as const;

/**
 * The brand service's refusal names the field in the API's words and in English; the flash (read
 * in the member's language, web/refusal.ts) names the form's label instead. An English reader
 * keeps the service's own sentence.
 */
async function namingTheField(t: Translator, save: () => Promise<unknown>): Promise<void> {
  try {
    await save();
  } catch (err) {
    if (!(err instanceof AppError) || t.locale === baseLanguage) throw err;
    const refused = err.extra.errors?.[0]?.field;
    const name = brandFields.find((f) => f === refused);
    if (!name) throw err;
    throw new ReaderRefusal(
      err.code,
      t.t("errors.badRequest.field", { field: t.t(`mail.settings.${name}`) }),
      {
        ...(err.extra.errors ? { errors: err.extra.errors } : {}),
      },
    );
  }
}

/**
 * The service's refusal (wordingErrors, in English for the API) in the page's language, the
 * placeholder still named; a sentence this page does not know stays as the service says it.
 */
function localized(t: Translator, kind: WordedKind, error: FieldError): FieldError {
  const longer = /^must be at most (\d+) characters$/.exec(error.message);
  if (longer)
    return { field: error.field, message: t.t("mail.editor.fieldTooLong", { max: Number(longer[1]) }) };
  if (error.message === "must be one line")
    return { field: error.field, message: t.t("mail.editor.oneLine") };
  const match = /unknown placeholder (\{[^}]*\}(?:, \{[^}]*\})*)/.exec(error.message);
  if (!match) return error;
  const list = wordingPlaceholders[kind].map((n) => `{${n}}`).join(", ");
  return {
    field: error.field,
    message: t.t("mail.editor.unknownPlaceholder", { name: match[1] ?? "", list }),
  };
}

function send(reply: FastifyReply, status: number, page: PageContext, body: SafeHtml) {
  return sendPage(reply, status, dashboardPage(page, "settings", page.t.t("mail.settings.title"), body));
}

function brandBody(page: PageContext, shop: ShopBrand, wordings: Map<string, Wording>): SafeHtml {
  const { t } = page;
  return html`<p class="muted">${t.t("mail.settings.intro")}</p>
<form method="post" action="${BRAND}" class="edit-form">${csrfField(page.csrf)}
${selectField({ name: "language", label: t.t("mail.settings.language"), value: shop.language, required: true, options: languages.map((l) => [l, languageName(l)] as const), hint: t.t("mail.settings.languageHint") })}
${inputField({ name: "logoUrl", label: t.t("mail.settings.logoUrl"), type: "url", value: shop.logoUrl ?? "", maxLength: 2000, placeholder: "https://" })}
${inputField({ name: "accentColor", label: t.t("mail.settings.accentColor"), value: shop.accentColor ?? "", maxLength: 7, placeholder: "#a1b2c3" })}
${textareaField({ name: "address", label: t.t("mail.settings.address"), value: shop.address ?? "", maxLength: 500 })}
${inputField({ name: "phone", label: t.t("mail.settings.phone"), type: "tel", value: shop.phone ?? "", maxLength: 50 })}
${textareaField({ name: "signature", label: t.t("mail.settings.signature"), value: shop.signature ?? "", maxLength: 1000 })}
<div class="actions"><button type="submit" class="primary">${t.t("mail.editor.save")}</button></div>
</form>
<h2 id="mail">${t.t("mail.editor.title")}</h2>
<p class="muted">${t.t("mail.editor.intro")}</p>
<table class="wordings"><tbody>${wordedKinds.map(
    (kind) =>
      html`<tr><th scope="row">${t.t(`mail.editor.kinds.${kind}`)}</th><td>${languages.map(
        (language) =>
          html`<a href="${MAIL}?kind=${kind}&amp;language=${language}" data-kind="${kind}" data-language="${language}">${language}${wordings.has(`${kind}/${language}`) ? ` (${t.t("mail.editor.edited")})` : ""}</a> `,
      )}</td></tr>`,
  )}</tbody></table>`;
}

const sampleDate = "2027-06-12T08:30:00Z";

/** The mail as it would go out now, for a made-up customer of this shop. */
function previewOf(shop: ShopBrand, kind: WordedKind, language: string, wording: Wording): RenderedMail {
  const common = {
    shopName: shop.name,
    contactEmail: shop.contactEmail,
    replyTo: null,
    timeZone: shop.timeZone,
    customerName: "Clara Weiß",
    language,
    brand: {
      logoUrl: shop.logoUrl,
      accentColor: shop.accentColor,
      address: shop.address,
      phone: shop.phone,
      signature: shop.signature,
    },
    wording,
  };
  const ctx = {
    publicUrl: "https://example.invalid",
    fromAddress: "no-reply@example.invalid",
    secret: "preview",
  };
  if (kind === "order_status") {
    return orderStatusMail.render(
      {
        ...common,
        number: 1001,
        orderType: "BRIDAL_DRESS",
        model: "Aurora",
        status: "FITTING_READY",
        message: "…",
        trackingToken: "preview",
      },
      ctx,
    );
  }
  const template = kind === "appointment_confirmed" ? appointmentConfirmedMail : appointmentCancelledMail;
  return template.render(
    {
      ...common,
      customerEmail: "clara@example.invalid",
      appointmentId: "preview",
      appointmentType: "FITTING",
      date: sampleDate,
      duration: 60,
      changedAt: sampleDate,
    },
    ctx,
  );
}

function editorBody(
  page: PageContext,
  shop: ShopBrand,
  target: { kind: WordedKind; language: string },
  values: { subject: string; opening: string },
  errors: FieldError[],
  edited: boolean,
): SafeHtml {
  const { t } = page;
  const placeholders = wordingPlaceholders[target.kind].map((n) => `{${n}}`).join(", ");
  const preview =
    errors.length === 0
      ? previewOf(shop, target.kind, target.language, { subject: values.subject, opening: values.opening })
      : null;
  return html`<p><a href="${BRAND}#mail">${t.t("mail.editor.title")}</a></p>
<h2>${t.t(`mail.editor.kinds.${target.kind}`)} · ${languageName(target.language)} <span class="badge">${edited ? t.t("mail.editor.edited") : t.t("mail.editor.standard")}</span></h2>
<p class="muted">${t.t("mail.editor.placeholders", { list: placeholders })}</p>
<form method="post" action="${MAIL}" class="edit-form">${csrfField(page.csrf)}
<input type="hidden" name="kind" value="${target.kind}"><input type="hidden" name="language" value="${target.language}">
${inputField({ name: "subject", label: t.t("mail.editor.subject"), value: values.subject, maxLength: 200, errors })}
${textareaField({ name: "opening", label: t.t("mail.editor.opening"), value: values.opening, maxLength: 2000, errors })}
<div class="actions"><button type="submit" class="primary" name="action" value="save">${t.t("mail.editor.save")}</button>
<button type="submit" name="action" value="preview">${t.t("mail.editor.preview")}</button>
<button type="submit" name="action" value="reset" formnovalidate>${t.t("mail.editor.reset")}</button></div>
</form>
${
  preview
    ? html`<h3>${t.t("mail.editor.preview")}</h3>
<section class="mail-preview" aria-label="${t.t("mail.editor.preview")}"><p><strong id="preview-subject">${preview.subject}</strong></p>
<pre id="preview-text" style="white-space:pre-wrap;overflow-wrap:anywhere">${preview.text}</pre></section>`
    : ""
}`;
}

/** The Settings page's way here, in the member's language. */
export function brandSettingsLink(t: Translator): SafeHtml {
  return html`<h2>${t.t("mail.settings.title")}</h2>
<p class="muted">${t.t("mail.settings.intro")}</p>
<p><a class="button" href="${BRAND}">${t.t("mail.settings.title")}</a> <a class="button" href="${BRAND}#mail">${t.t("mail.settings.editMail")}</a></p>`;
}
