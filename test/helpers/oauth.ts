// OAuth test helpers: register an application, sign a vendor in through the real /login page,
// consent on the real consent page, and call the token and revocation endpoints as a client.
import { createHash, randomBytes } from "node:crypto";
import type { Scope } from "../../src/auth/scopes.ts";
import type { ServiceContext } from "../../src/context.ts";
import { createApplication } from "../../src/modules/applications/applications.service.ts";
import { Browser, type PageResponse } from "./browser.ts";
import { createVendor, TEST_PASSWORD } from "./factories.ts";
import type { TestApp } from "./test-app.ts";

export const REDIRECT_URI = "https://client.example/callback";

/** A public application of its own shop ("App Maker"), so any test vendor may authorize it. */
export async function createClient(ctx: ServiceContext, redirectUris: string[] = [REDIRECT_URI]) {
  const owner = await createVendor(ctx, "App Maker");
  const { application, clientSecret } = await createApplication(ctx, owner.id, {
    name: "Bridal POS",
    redirectUris,
    public: true,
  });
  return { clientId: application.clientId, clientSecret, application };
}

export type Client = Awaited<ReturnType<typeof createClient>>;

export function pkcePair() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

export async function signedInBrowser(t: TestApp, email: string, password = TEST_PASSWORD): Promise<Browser> {
  const browser = new Browser(t.url);
  const page = await browser.get("/login");
  const res = await browser.submit(page, { email, password });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 200)}`);
  return browser;
}

export function authorizePath(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, v);
  return `/api/oauth/authorize?${q.toString()}`;
}

export function validParams(
  client: Client,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
) {
  return {
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: REDIRECT_URI,
    scope: "orders:read orders:write",
    state: "xyz-state",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...overrides,
  };
}

/** The redirect's query parameters, after checking it goes to `redirectUri`. */
export function redirectParams(res: PageResponse, redirectUri = REDIRECT_URI): URLSearchParams {
  if (!res.location) throw new Error(`no redirect: ${res.status} ${res.text.slice(0, 300)}`);
  const url = new URL(res.location);
  if (`${url.origin}${url.pathname}` !== redirectUri.split("?")[0])
    throw new Error(`unexpected redirect ${res.location}`);
  return url.searchParams;
}

/** A fresh vendor signs in, opens the authorization URL and clicks Allow: returns the code. */
export async function authorizeCode(
  t: TestApp,
  client: Client,
  options: { scope?: string; email?: string; redirectUri?: string } = {},
) {
  const email = options.email ?? (await createVendor(t.ctx)).email;
  const browser = await signedInBrowser(t, email);
  const { verifier, challenge } = pkcePair();
  const params = validParams(client, challenge, {
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.redirectUri ? { redirect_uri: options.redirectUri } : {}),
  });
  const consent = await browser.get(authorizePath(params));
  if (consent.status !== 200) throw new Error(`consent page: ${consent.status} ${consent.location}`);
  const res = await browser.submit(consent, { decision: "allow" });
  const code = redirectParams(res, options.redirectUri ?? REDIRECT_URI).get("code");
  if (!code) throw new Error(`no code in ${res.location}`);
  return { code, verifier, browser, email, redirectUri: params.redirect_uri };
}

export interface TokenCall {
  status: number;
  headers: Headers;
  body: any;
}

/** POST form-encoded to an OAuth endpoint; `basic` sends the client credentials as HTTP Basic. */
export async function oauthPost(
  t: TestApp,
  path: "/api/oauth/token" | "/api/oauth/revoke",
  form: Record<string, string | string[]>,
  basic?: { id: string; secret: string },
): Promise<TokenCall> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (basic) {
    const enc = (s: string) => encodeURIComponent(s);
    headers.authorization = `Basic ${Buffer.from(`${enc(basic.id)}:${enc(basic.secret)}`).toString("base64")}`;
  }
  const res = await fetch(t.url + path, { method: "POST", headers, body: body.toString() });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

export function clientCredentials(client: Client) {
  return { client_id: client.clientId, client_secret: client.clientSecret };
}

export async function exchangeCode(
  t: TestApp,
  client: Client,
  code: string,
  verifier: string,
  redirectUri = REDIRECT_URI,
) {
  return oauthPost(t, "/api/oauth/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    ...clientCredentials(client),
  });
}

export async function refresh(t: TestApp, client: Client, refreshToken: string, scope?: string) {
  return oauthPost(t, "/api/oauth/token", {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    ...(scope !== undefined ? { scope } : {}),
    ...clientCredentials(client),
  });
}

/** Signs in, consents and exchanges the code: a client holding fresh tokens. */
export async function obtainTokens(t: TestApp, client: Client, scope?: string) {
  const { code, verifier, email } = await authorizeCode(t, client, scope ? { scope } : {});
  const res = await exchangeCode(t, client, code, verifier);
  if (res.status !== 200) throw new Error(`token exchange: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...(res.body as { access_token: string; refresh_token: string; scope: string }), email };
}

export type { Scope };
