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
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";

const BASE = "/dashboard/integrations/applications";

export async function applicationPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const apps = (await listApplications(ctx, vendorIdOf(request))).map(presentApplication);
    const list =
      apps.length === 0
        ? emptyState("No applications yet. Register one to let other software act for vendors through OAuth.")
        : html`${apps.map(
            (a) => html`<section class="card" data-application-id="${a.id}">
<h2>${a.name}</h2>
<dl><dt>Client ID</dt><dd><code>${a.clientId}</code></dd>
<dt>Redirect URIs</dt><dd><ul>${a.redirectUris.map((u) => html`<li><code>${u}</code></li>`)}</ul></dd>
<dt>Registered</dt><dd>${time(a.createdAt, page.timeZone)}</dd>
<dt>Who may connect it</dt><dd data-visibility="${a.public ? "public" : "private"}">${a.public ? "Any shop (public)" : "Only this shop (private)"}</dd></dl>
<div class="actions">${confirmLink(`${BASE}/${a.id}/${a.public ? "make-private" : "make-public"}`, a.public ? "Make private" : "Make public")}
${confirmLink(`${BASE}/${a.id}/rotate-secret`, "Rotate client secret")}
${confirmLink(`${BASE}/${a.id}/delete`, "Delete")}</div>
</section>`,
          )}`;
    const body = html`${list}
<h2>Register an application</h2>
<form method="post" action="${BASE}">${csrfField(page.csrf)}
<label for="app-name">Name</label><input id="app-name" name="name" required maxlength="100">
<label for="app-uris">Redirect URIs, one per line</label>
<textarea id="app-uris" name="redirectUris" required placeholder="https://app.example/callback"></textarea>
<p class="muted">https, or http on localhost / 127.0.0.1 / [::1]; no fragment. Compared exactly.</p>
<label><input type="checkbox" name="public" value="true"> Public: any shop may connect it (otherwise only this shop)</label>
<div class="actions"><button type="submit" class="primary">Register</button></div>
</form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "applications", "Applications", body));
  });

  app.post(BASE, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
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
        message: `Application “${application.name}” registered. Client ID ${application.clientId}; its client secret:`,
        secret: clientSecret,
      };
    });
  });

  const named = async (request: FastifyRequest<{ Params: Record<string, string> }>) =>
    getApplication(ctx, vendorIdOf(request), request.params.id ?? "");

  confirmedAction(app, deps, `${BASE}/:id/rotate-secret`, {
    confirmation: async (request) => ({
      section: "applications",
      title: `Rotate the client secret of “${(await named(request)).name}”?`,
      consequence:
        "A new client secret is shown once; the current one stops working at once, so the application cannot refresh its tokens until it has the new one.",
      button: "Rotate client secret",
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
        message: `New client secret for “${application.name}”; the old one no longer works.`,
        secret: clientSecret,
      };
    },
    done: () => BASE,
  });

  for (const makePublic of [true, false]) {
    confirmedAction(app, deps, `${BASE}/:id/${makePublic ? "make-public" : "make-private"}`, {
      confirmation: async (request) => ({
        section: "applications",
        title: `Make “${(await named(request)).name}” ${makePublic ? "public" : "private"}?`,
        consequence: makePublic
          ? "Any shop may then connect it, seeing on the consent page that your shop publishes it."
          : "Only your shop may connect it; every other shop that connected it loses the connection, and its tokens stop working at once.",
        button: makePublic ? "Make public" : "Make private",
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
          message: `“${application.name}” is now ${makePublic ? "public" : "private"}.`,
        };
      },
      done: () => BASE,
    });
  }

  confirmedAction(app, deps, `${BASE}/:id/delete`, {
    confirmation: async (request) => ({
      section: "applications",
      title: `Delete the application “${(await named(request)).name}”?`,
      consequence:
        "Every shop that connected it loses the connection, and every token it holds stops working at once.",
      button: "Delete application",
      back: BASE,
    }),
    act: async (request) => {
      await deleteApplication(ctx, vendorIdOf(request), request.params.id ?? "");
      return { kind: "success", message: "Application deleted; every token it held is void." };
    },
    done: () => BASE,
  });
}
