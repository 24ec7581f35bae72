// An id in a dashboard URL that cannot be an id (a CR/LF, a character above U+00FF) is the
// dashboard's 404 page on every route, GET and POST alike: such an id once
// reached a redirect's Location header and answered a bare JSON 500.
import { describe, expect, it } from "vitest";
import { csrfOf, signedInVendor } from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const malformed = [
  "%0D%0Ax", // CR LF
  "x%0Ay", // LF inside
  "%C4%80", // U+0100, the first character above U+00FF
  "%E2%82%AC", // €
  "ab%0D%0ALocation:%20https://evil.example", // a header injection attempt
];

describe("malformed ids in dashboard URLs", () => {
  it("answer the 404 page on every dashboard route with an id, GET and POST", async () => {
    const { browser } = await signedInVendor(t);
    const csrf = csrfOf(await browser.get("/dashboard/orders"));
    const routes = t.app.routeCatalog.filter((r) => r.url.startsWith("/dashboard/") && r.url.includes("/:"));
    expect(routes.filter((r) => r.method === "POST").length).toBeGreaterThan(10);
    expect(routes.filter((r) => r.method === "GET").length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const id of malformed) {
      for (const { method, url } of routes) {
        const path = url.replace(/:[A-Za-z]+/g, id);
        const res = method === "GET" ? await browser.get(path) : await browser.post(path, { _csrf: csrf });
        const type = res.headers.get("content-type") ?? "";
        if (res.status !== 404 || !type.startsWith("text/html") || !res.text.includes("Not found"))
          wrong.push(`${method} ${path}: ${res.status} ${type} ${res.text.slice(0, 80)}`);
        expect(res.headers.get("location")).toBeNull();
      }
    }
    expect(wrong).toEqual([]);
  });
});
