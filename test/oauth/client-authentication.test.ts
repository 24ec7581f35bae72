import { describe, expect, it } from "vitest";
import { rotateApplicationSecret } from "../../src/modules/applications/applications.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { authorizeCode, createClient, oauthPost, REDIRECT_URI } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function codeRequest() {
  const client = await createClient(t.ctx);
  const { code, verifier } = await authorizeCode(t, client);
  const form = {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  };
  return { client, form };
}

describe("client authentication at the token endpoint (RFC 6749 2.3.1, CONTRACT 6)", () => {
  it("HTTP Basic (client_secret_basic) authenticates the client", async () => {
    const { client, form } = await codeRequest();
    const res = await oauthPost(t, "/api/oauth/token", form, {
      id: client.clientId,
      secret: client.clientSecret,
    });
    expect(res.status).toBe(200);
  });

  it("client_id and client_secret in the body (client_secret_post) authenticate the client", async () => {
    const { client, form } = await codeRequest();
    const res = await oauthPost(t, "/api/oauth/token", {
      ...form,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(res.status).toBe(200);
  });

  it("a wrong secret is 401 invalid_client, with a Basic challenge when Basic was tried", async () => {
    const { client, form } = await codeRequest();
    const basic = await oauthPost(t, "/api/oauth/token", form, { id: client.clientId, secret: "vcs_wrong" });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe("invalid_client");
    expect(basic.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(basic.headers.get("cache-control")).toBe("no-store");
    const post = await oauthPost(t, "/api/oauth/token", {
      ...form,
      client_id: client.clientId,
      client_secret: "x",
    });
    expect(post.status).toBe(401);
    expect(post.body.error).toBe("invalid_client");
  });

  it("an unknown client, or no client credentials at all, is 401 invalid_client", async () => {
    const { form } = await codeRequest();
    const unknown = await oauthPost(t, "/api/oauth/token", {
      ...form,
      client_id: "app_nope",
      client_secret: "x",
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe("invalid_client");
    const none = await oauthPost(t, "/api/oauth/token", form);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("invalid_client");
    const onlyId = await oauthPost(t, "/api/oauth/token", { ...form, client_id: "app_nope" });
    expect(onlyId.status).toBe(401);
  });

  it("using Basic and client_secret_post at once is invalid_request (one method per request)", async () => {
    const { client, form } = await codeRequest();
    const res = await oauthPost(
      t,
      "/api/oauth/token",
      { ...form, client_id: client.clientId, client_secret: client.clientSecret },
      { id: client.clientId, secret: client.clientSecret },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_request");
  });

  it("a rotated client secret replaces the old one at once", async () => {
    const { client, form } = await codeRequest();
    const { clientSecret } = await rotateApplicationSecret(
      t.ctx,
      client.application.vendorId,
      client.application.id,
    );
    const old = await oauthPost(t, "/api/oauth/token", form, {
      id: client.clientId,
      secret: client.clientSecret,
    });
    expect(old.status).toBe(401);
    const fresh = await oauthPost(t, "/api/oauth/token", form, { id: client.clientId, secret: clientSecret });
    expect(fresh.status).toBe(200);
  });

  it("the token endpoint takes form bodies only: a JSON body is 400 invalid_request in RFC 6749 5.2 form", async () => {
    const res = await fetch(`${t.url}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code" }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: "invalid_request", error_description: expect.any(String) });
  });

  it("form bodies stay refused under /api/vendor: 415 unsupported_media_type", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const authed = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: "customerName=a&type=BRIDAL_DRESS",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(authed.status).toBe(415);
    expect(authed.body.code).toBe("unsupported_media_type");
  });
});
