// Integrations → Applications: OAuth clients this vendor registers (CONTRACT 6). Register (name,
// redirect URIs one per line, validated by the service), client ID, client secret shown once,
// rotate secret, delete.

import type { FastifyInstance, FastifyRequest } from "fastify";
import { presentApplication } from "../../modules/applications/applications.presenter.ts";
import {
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  rotateApplicationSecret,
  setApplicationPublic,
} from "../../modules/applications/applications.service.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { field } from "../../web/form.ts";
import { runAction } from "../../web/form-actions.ts";
import { html } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { say } from "./text.ts";

const BASE = "/dashboard/integrations/applications";

export async function applicationPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const apps = (await listApplications(ctx, vendorIdOf(request))).map(presentApplication);
    const list =
      apps.length === 0
        ? emptyState(say(t, "applications.empty"))
        : html`${apps.map(
            (a) => html`<section class="card" data-application-id="${a.id}">
<h2>${a.name}</h2>
<dl><dt>${say(t, "applications.clientId")}</dt><dd><code>${a.clientId}</code></dd>
<dt>${say(t, "applications.redirectUris")}</dt><dd><ul>${a.redirectUris.map((u) => html`<li><code>${u}</code></li>`)}</ul></dd>
<dt>${say(t, "applications.registered")}</dt><dd>${time(a.createdAt, page.timeZone, t)}</dd>
<dt>${say(t, "applications.whoMayConnect")}</dt><dd data-visibility="${a.public ? "public" : "private"}">${a.public ? say(t, "applications.anyShop") : say(t, "applications.onlyThisShop")}</dd></dl>
<div class="actions">${confirmLink(`${BASE}/${a.id}/${a.public ? "make-private" : "make-public"}`, a.public ? say(t, "applications.makePrivate") : say(t, "applications.makePublic"))}
${confirmLink(`${BASE}/${a.id}/rotate-secret`, say(t, "applications.rotateSecret"))}
${confirmLink(`${BASE}/${a.id}/delete`, t.t("common.delete"))}</div>
</section>`,
          )}`;
    const body = html`${list}
<h2>${say(t, "applications.registerHeading")}</h2>
<form method="post" action="${BASE}">${csrfField(page.csrf)}
<label for="app-name">${t.t("common.name")}</label><input id="app-name" name="name" required maxlength="100">
<label for="app-uris">${say(t, "applications.urisLabel")}</label>
<textarea id="app-uris" name="redirectUris" required placeholder="https://app.example/callback"></textarea>
<p class="muted">${say(t, "applications.urisHint")}</p>
<label><input type="checkbox" name="public" value="true"> ${say(t, "applications.publicLabel")}</label>
<div class="actions"><button type="submit" class="primary">${say(t, "applications.submit")}</button></div>
</form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "applications", t.t("dashboard.nav.applications"), body));
  });

  app.post(BASE, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const { t } = readerOf(request);
    return runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
      const redirectUris = field(form, "redirectUris")
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== "");
      const { application, clientSecret } = await createApplication(ctx, vendorIdOf(request), {
        name: field(form, "name"),
        redirectUris,
        public: field(form, "public") === "true",
      });
      return {
        kind: "success",
        message: say(t, "applications.registeredFlash", {
          name: application.name,
          clientId: application.clientId,
        }),
        secret: clientSecret,
      };
    });
  });

  const named = async (request: FastifyRequest<{ Params: Record<string, string> }>) =>
    getApplication(ctx, vendorIdOf(request), request.params.id ?? "");

  confirmedAction(app, deps, `${BASE}/:id/rotate-secret`, {
    confirmation: async (request) => ({
      section: "applications",
      title: say(readerOf(request).t, "applications.rotateTitle", { name: (await named(request)).name }),
      consequence: say(readerOf(request).t, "applications.rotateConsequence"),
      button: say(readerOf(request).t, "applications.rotateSecret"),
      back: BASE,
    }),
    act: async (request) => {
      const { application, clientSecret } = await rotateApplicationSecret(
        ctx,
        vendorIdOf(request),
        request.params.id ?? "",
      );
      return {
        kind: "success",
        message: say(readerOf(request).t, "applications.rotated", { name: application.name }),
        secret: clientSecret,
      };
    },
    done: () => BASE,
  });

  for (const makePublic of [true, false]) {
    confirmedAction(app, deps, `${BASE}/:id/${makePublic ? "make-public" : "make-private"}`, {
      confirmation: async (request) => ({
        section: "applications",
        title: say(
          readerOf(request).t,
          makePublic ? "applications.makePublicTitle" : "applications.makePrivateTitle",
          {
            name: (await named(request)).name,
          },
        ),
        consequence: say(
          readerOf(request).t,
          makePublic ? "applications.makePublicConsequence" : "applications.makePrivateConsequence",
        ),
        button: say(readerOf(request).t, makePublic ? "applications.makePublic" : "applications.makePrivate"),
        back: BASE,
      }),
      act: async (request) => {
        const application = await setApplicationPublic(
          ctx,
          vendorIdOf(request),
          request.params.id ?? "",
          makePublic,
        );
        return {
          kind: "success",
          message: say(
            readerOf(request).t,
            makePublic ? "applications.nowPublic" : "applications.nowPrivate",
            {
              name: application.name,
            },
          ),
        };
      },
      done: () => BASE,
    });
  }

  confirmedAction(app, deps, `${BASE}/:id/delete`, {
    confirmation: async (request) => ({
      section: "applications",
      title: say(readerOf(request).t, "applications.deleteTitle", { name: (await named(request)).name }),
      consequence: say(readerOf(request).t, "applications.deleteConsequence"),
      button: say(readerOf(request).t, "applications.deleteButton"),
      back: BASE,
    }),
    act: async (request) => {
      await deleteApplication(ctx, vendorIdOf(request), request.params.id ?? "");
      return { kind: "success", message: say(readerOf(request).t, "applications.deleted") };
    },
    done: () => BASE,
  });
}
