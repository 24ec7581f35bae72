// Rules (RFC 6749 4.1.2.1, CONTRACT 6):
// - client_id is required and given once;
// - it names a registered application;
// - failing either, the request is answered with an HTML page and never redirected, because
//   without a trusted client there is no trusted redirect URI.
import type { ServiceContext } from "../../context.ts";
import { type ApplicationRow, findClient } from "../../modules/applications/applications.service.ts";
import { UntrustedRedirect } from "../oauth.errors.ts";
import { param, type RawParams } from "../params.ts";

export async function checkClient(ctx: ServiceContext, params: RawParams): Promise<ApplicationRow> {
  const clientId = param(params, "client_id");
  if (clientId.kind === "absent") throw new UntrustedRedirect("The request names no client_id.");
  if (clientId.kind === "repeated") throw new UntrustedRedirect("client_id is given more than once.");
  const application = await findClient(ctx, clientId.value);
  if (!application) throw new UntrustedRedirect("The client_id names no registered application.");
  return application;
}
