// Runs one checked CLI request against the services. The same function serves the CLI process
// (database opened itself) and a running server (request over its control socket), so both give
// the same answer: `result` is the --json document, `text` the human-readable one.
import { runAsActor } from "../auth/actor.ts";
import type { ServiceContext } from "../context.ts";
import { notFound } from "../errors.ts";
import { createApiKey, listApiKeysOfVendor, revokeApiKey } from "../modules/api-keys/api-keys.service.ts";
import { presentApplication } from "../modules/applications/applications.presenter.ts";
import {
  createApplication,
  deleteApplication,
  listApplications,
} from "../modules/applications/applications.service.ts";
import { createPasswordResetLink } from "../modules/members/password-reset.service.ts";
import { createVendor, findVendor } from "../modules/use-cases/vendor-accounts.service.ts";
import { listVendors, updateVendorLocale } from "../modules/vendors/vendors.service.ts";
import { listWebhooks } from "../modules/webhooks/webhooks.service.ts";
import { type CliRequest, checkRequest } from "./requests.ts";

export interface CommandAnswer {
  result: unknown;
  text: string;
}

async function vendorOf(ctx: ServiceContext, ref: string) {
  const vendor = await findVendor(ctx, ref);
  if (!vendor) throw notFound(`Vendor "${ref}"`);
  return vendor;
}

/** Runs the operator's command; the activity log names the CLI for what it changes. */
export async function executeCommand(
  ctx: ServiceContext,
  request: CliRequest,
  settings: { publicUrl: string },
): Promise<CommandAnswer> {
  return runAsActor({ kind: "cli" }, () => runCommand(ctx, request, settings));
}

async function runCommand(
  ctx: ServiceContext,
  request: CliRequest,
  settings: { publicUrl: string },
): Promise<CommandAnswer> {
  checkRequest(request);
  switch (request.command) {
    case "migrate":
      // Whoever runs this has applied the migrations on opening the database.
      return { result: { migrated: true }, text: "Migrations applied." };
    case "vendor create": {
      const v = await createVendor(ctx, request);
      return {
        result: { id: v.id, name: v.name, email: v.email, language: v.language, timeZone: v.timeZone },
        text: `Created vendor ${v.id} (${v.email})`,
      };
    }
    case "vendor update": {
      const vendor = await vendorOf(ctx, request.vendor);
      const v = await updateVendorLocale(ctx, vendor.id, {
        language: request.language,
        timeZone: request.timeZone,
      });
      return {
        result: { id: v.id, name: v.name, email: v.email, language: v.language, timeZone: v.timeZone },
        text: `Vendor ${v.id}: language ${v.language}, time zone ${v.timeZone}`,
      };
    }
    case "vendor list": {
      const vendors = await listVendors(ctx);
      return {
        result: { vendors },
        text: vendors.length
          ? vendors.map((v) => `${v.id}  ${v.email}  ${v.name}`).join("\n")
          : "No vendors.",
      };
    }
    case "vendor reset-password": {
      const link = await createPasswordResetLink(ctx, settings.publicUrl, request.vendor);
      const expiresAt = link.expiresAt.toISOString();
      return {
        result: { vendorId: link.vendorId, url: link.url, expiresAt },
        text: `Password-reset link for ${link.email} (one use, until ${expiresAt}):\n${link.url}`,
      };
    }
    case "api-key create": {
      const vendor = await vendorOf(ctx, request.vendor);
      const { row, key } = await createApiKey(ctx, {
        vendorId: vendor.id,
        name: request.name,
        scopes: request.scopes,
        test: request.test === true,
      });
      const kind = request.test ? "test API key (sandbox)" : "API key";
      return {
        result: request.test ? { id: row.id, key, test: true } : { id: row.id, key },
        text: `Created ${kind} ${row.id}. It is shown only now:\n${key}`,
      };
    }
    case "api-key list": {
      const vendor = await vendorOf(ctx, request.vendor);
      const keys = await listApiKeysOfVendor(ctx, vendor.id);
      return {
        result: { apiKeys: keys },
        text: keys.length
          ? keys
              .map(
                (k) =>
                  `${k.id}  ${k.prefix}…  ${k.name}${k.test ? "  (test)" : ""}${k.revokedAt ? "  (revoked)" : ""}`,
              )
              .join("\n")
          : "No API keys.",
      };
    }
    case "api-key revoke": {
      const vendor = await vendorOf(ctx, request.vendor);
      if (!(await revokeApiKey(ctx, vendor.id, request.id))) throw notFound("API key");
      return { result: { id: request.id, revoked: true }, text: `Revoked API key ${request.id}.` };
    }
    case "app create": {
      const vendor = await vendorOf(ctx, request.vendor);
      const { application, clientSecret } = await createApplication(ctx, vendor.id, request);
      return {
        result: { clientId: application.clientId, clientSecret },
        text: `Created application ${application.name}.\nClient ID: ${application.clientId}\nClient secret (shown only now): ${clientSecret}`,
      };
    }
    case "app list": {
      const vendor = await vendorOf(ctx, request.vendor);
      const apps = (await listApplications(ctx, vendor.id)).map(presentApplication);
      return {
        result: { applications: apps },
        text: apps.length
          ? apps.map((a) => `${a.id}  ${a.clientId}  ${a.name}`).join("\n")
          : "No applications.",
      };
    }
    case "app delete": {
      const vendor = await vendorOf(ctx, request.vendor);
      await deleteApplication(ctx, vendor.id, request.id);
      return { result: { id: request.id, deleted: true }, text: `Deleted application ${request.id}.` };
    }
    case "webhook list": {
      const vendor = await vendorOf(ctx, request.vendor);
      const { webhooks } = await listWebhooks(ctx, vendor.id);
      return {
        result: { webhooks },
        text: webhooks.length
          ? webhooks.map((w) => `${w.id}  ${w.status}  ${w.url}  ${w.events.join(",")}`).join("\n")
          : "No webhooks.",
      };
    }
  }
}
