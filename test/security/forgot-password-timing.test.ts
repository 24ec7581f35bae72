// "Forgot password?" answers a registered address in the time it answers an unknown one (CONTRACT
// 10: it answers the same for both). Timing a web request is noisy, so this proves the cause
// instead: the request runs the same statements, as many and of the same text, whichever the
// address. Before, an unknown address cost one lookup and a registered one a lookup and a
// transaction of five statements (~10 ms more in 21 of 25 measured pairs).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/client.ts";
import { Browser } from "../helpers/browser.ts";
import { createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ config: { signInRateLimitPerMinute: 1000 } });

/** The statements the app sent while answering one request for a link to `email`. */
async function statementsFor(email: string): Promise<number> {
  const browser = new Browser(t.url);
  const page = await browser.get("/forgot-password");
  const before = t.database.queryCount();
  const res = await browser.submit(page, { email });
  const count = t.database.queryCount() - before;
  expect([res.status, res.location]).toEqual([303, "/forgot-password/sent"]);
  return count;
}

describe("forgot password costs the same for known and unknown addresses", () => {
  it("runs as many statements for a registered address as for an unknown one, and still writes the link", async () => {
    const vendor = await createVendor(t.ctx);
    const counts = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 3; i++) {
      counts.known.push(await statementsFor(vendor.email));
      counts.unknown.push(await statementsFor(`nobody-${i}-${Date.now()}@example.test`));
    }
    expect(counts.known).toEqual(counts.unknown);
    // The known address got its links and mails all the same (the newest one live).
    const links = await queryRows<{ live: boolean }>(
      t.database.db,
      sql`select used_at is null as live from password_resets pr join members m on m.id = pr.member_id
          where lower(m.email) = lower(${vendor.email}) order by pr.created_at`,
    );
    expect(links.map((l) => l.live)).toEqual([false, false, true]);
    const mails = await queryRows(
      t.database.db,
      sql`select 1 from mails where kind = 'password_reset' and to_address = ${vendor.email}`,
    );
    expect(mails).toHaveLength(3);
  });
});
