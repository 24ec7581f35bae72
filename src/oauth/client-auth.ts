// Client authentication at the token and revocation endpoints.
// Rules (RFC 6749 2.3.1, CONTRACT 6):
// - HTTP Basic (client_secret_basic) with form-urlencoded id and secret, or client_id and
//   client_secret in the body (client_secret_post);
// - a client uses one method per request: both at once is invalid_request (RFC 6749 2.3);
// - no credentials, an unknown client or a wrong secret is 401 invalid_client, with a Basic
//   challenge when the client tried Basic (RFC 6749 5.2).
import type { ServiceContext } from "../context.ts";
import { type ApplicationRow, authenticateClient } from "../modules/applications/applications.service.ts";
import { InvalidClient, InvalidRequest } from "./oauth.errors.ts";
import { type RawParams, single } from "./params.ts";

const repeated = (name: string) => new InvalidRequest(`${name} is given more than once`);

function parseBasic(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    // RFC 6749 2.3.1: both parts are application/x-www-form-urlencoded before base64.
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    const id = unform(decoded.slice(0, colon));
    const secret = unform(decoded.slice(colon + 1));
    // Decoded NUL never reaches a query (the body's parameters are checked by the request guards).
    if (id.includes("\u0000") || secret.includes("\u0000")) return undefined;
    return { id, secret };
  } catch {
    return undefined;
  }
}

export async function authenticateClientRequest(
  ctx: ServiceContext,
  authorization: string | undefined,
  body: RawParams,
): Promise<ApplicationRow> {
  const postId = single(body, "client_id", repeated);
  const postSecret = single(body, "client_secret", repeated);
  if (authorization !== undefined) {
    if (postSecret !== undefined) {
      throw new InvalidRequest("Use one client authentication method: HTTP Basic or client_secret_post");
    }
    const basic = parseBasic(authorization);
    if (!basic) throw new InvalidClient("Malformed HTTP Basic credentials", true);
    if (postId !== undefined && postId !== basic.id) {
      throw new InvalidRequest("client_id in the body differs from the authenticated client");
    }
    const application = await authenticateClient(ctx, basic.id, basic.secret);
    if (!application) throw new InvalidClient("Client authentication failed", true);
    return application;
  }
  if (postId === undefined || postSecret === undefined) {
    throw new InvalidClient("Client authentication is required (HTTP Basic or client_id + client_secret)");
  }
  const application = await authenticateClient(ctx, postId, postSecret);
  if (!application) throw new InvalidClient();
  return application;
}
