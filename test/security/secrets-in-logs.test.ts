// No secret reaches the log (CONTRACT 3): the app's whole pino output during a run that
// creates and uses every kind of credential is captured and searched for each one: 0 hits.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getOrderTrackingToken } from "../../src/modules/orders/orders.service.ts";
import type { PageResponse } from "../helpers/browser.ts";
import { csrfOf, flashOf, postFrom } from "../helpers/dashboard.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import {
  authorizeCode,
  clientCredentials,
  createClient,
  exchangeCode,
  oauthPost,
  refresh,
  signedInBrowser,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const lines: string[] = [];
const t = useTestApp({ env: { LOG_LEVEL: "trace" }, logStream: { write: (line) => lines.push(line) } });

/** Every secret the run creates or sends, by what it is. */
const secrets = new Map<string, string>();
const remember = (what: string, value: string | undefined) => {
  if (!value) throw new Error(`no ${what}`);
  secrets.set(what, value);
  return value;
};

/** The page a form action ends on, whether it answers itself or redirects to it. */
async function landed(browser: Awaited<ReturnType<typeof signedInBrowser>>, res: PageResponse) {
  return res.status === 303 && res.location ? browser.get(res.location) : res;
}

describe("the log of a run holds none of the secrets it used", () => {
  it("0 hits for every password, key, token, code, verifier, client secret, webhook secret, tracking token, cookie and query parameter", async () => {
    const vendor = await createVendor(t.ctx);
    remember("password", TEST_PASSWORD);
    const browser = await signedInBrowser(t, vendor.email);
    for (const [name, value] of browser.cookies) remember(`cookie ${name}`, value);

    // An API key made in the dashboard, used, and sent where it is refused (the query string).
    const createdKey = await landed(
      browser,
      await postFrom(browser, "/dashboard/integrations/api-keys", "/dashboard/integrations/api-keys", {
        name: "POS",
      }),
    );
    const key = remember("api key", flashOf(createdKey)?.secret);
    remember("csrf token", csrfOf(createdKey));
    expect((await t.api.get("/api/vendor/profile", { key })).status).toBe(200);
    expect((await t.api.get(`/api/vendor/profile?access_token=${key}`)).status).toBe(401);
    const wrongKey = remember("wrong key", `vk_${randomBytes(32).toString("base64url")}`);
    expect((await t.api.get("/api/vendor/profile", { key: wrongKey })).status).toBe(401);

    // OAuth: client secret, code, verifier, state, access and refresh tokens, each used.
    const client = await createClient(t.ctx);
    remember("client secret", client.clientSecret);
    const { code, verifier } = await authorizeCode(t, client, { email: vendor.email });
    remember("code", code);
    remember("verifier", verifier);
    const tokens = (await exchangeCode(t, client, code, verifier)).body;
    remember("access token", tokens.access_token);
    remember("refresh token", tokens.refresh_token);
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
    expect((await t.api.get(`/api/vendor/orders?access_token=${tokens.access_token}`)).status).toBe(401);
    const rotated = (await refresh(t, client, tokens.refresh_token)).body;
    remember("rotated access token", rotated.access_token);
    remember("rotated refresh token", rotated.refresh_token);
    const revoked = await oauthPost(
      t,
      "/api/oauth/revoke",
      { token: rotated.refresh_token },
      {
        id: client.clientId,
        secret: client.clientSecret,
      },
    );
    expect(revoked.status).toBe(200);
    expect((await exchangeCode(t, client, code, verifier)).body.error).toBe("invalid_grant");
    const guessed = remember("guessed client secret", `vcs_${randomBytes(32).toString("base64url")}`);
    await oauthPost(t, "/api/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: "vrt_x",
      client_id: client.clientId,
      client_secret: guessed,
    });
    await oauthPost(t, "/api/oauth/token", {
      ...clientCredentials(client),
      grant_type: "refresh_token",
      refresh_token: `vrt_\u0000${guessed}`,
    });

    // A webhook's signing secret, shown in the API answer.
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);
    remember("webhook secret", hook.body.secret);

    // A customer's tracking link, opened, reloaded with a query, and mistyped.
    const order = await t.api.post("/api/vendor/orders", { customerName: "Maria", type: "SUIT" }, { key });
    const tracking = remember("tracking token", await getOrderTrackingToken(t.ctx, vendor.id, order.body.id));
    expect((await fetch(`${t.url}/track/${tracking}`)).status).toBe(200);
    expect((await fetch(`${t.url}/track/${tracking}?utm=1`)).status).toBe(200);
    expect((await fetch(`${t.url}/track/${tracking}/extra`)).status).toBe(404);

    // A database error whose parameters hold a secret, logged the way the error handlers log.
    const inQuery = remember("query parameter", `secret-${randomBytes(16).toString("hex")}`);
    const err = await t.ctx.db.execute(sql`select ${inQuery}::int`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    t.app.log.error({ err }, "unhandled error");

    const log = lines.join("");
    // The run was logged (requests, the tracking route by its pattern, the failed query).
    expect(log).toContain('"url":"/track/:token"');
    expect(log).toContain("Failed query");
    const hits = [...secrets].filter(([, value]) => log.includes(value)).map(([what]) => what);
    expect(hits).toEqual([]);
    expect(secrets.size).toBeGreaterThanOrEqual(15);
  });
});
