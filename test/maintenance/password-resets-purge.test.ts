// Housekeeping (src/maintenance/housekeeping.ts, the one home of periodic clean-up) deletes
// password-reset links that can no longer be used, expired or used, and keeps the live ones.
// Before, nothing ever deleted a row of password_resets.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { passwordResets } from "../../src/db/schema/index.ts";
import { newId } from "../../src/lib/ids.ts";
import { purgeExpiredCredentials } from "../../src/maintenance/housekeeping.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("housekeeping purges password-reset links that can no longer be used", () => {
  it("deletes the expired and the used links of a shop and keeps its live one", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const now = new Date();
    const hour = 60 * 60 * 1000;
    const link = (tokenHash: string, expiresAt: Date, usedAt: Date | null = null) => ({
      id: newId(),
      vendorId: vendor.id,
      memberId: vendor.ownerId,
      tokenHash,
      createdAt: new Date(now.getTime() - 2 * hour),
      expiresAt,
      usedAt,
    });
    await t.ctx.db
      .insert(passwordResets)
      .values([
        link(`expired-${newId()}`, new Date(now.getTime() - 1000)),
        link(`used-${newId()}`, new Date(now.getTime() + hour), new Date(now.getTime() - 1000)),
        link(
          `used-and-expired-${newId()}`,
          new Date(now.getTime() - hour),
          new Date(now.getTime() - 2 * hour),
        ),
        link(`live-${newId()}`, new Date(now.getTime() + hour)),
      ]);

    await purgeExpiredCredentials(t.ctx.db, now);

    const left = await t.ctx.db
      .select({ tokenHash: passwordResets.tokenHash })
      .from(passwordResets)
      .where(eq(passwordResets.vendorId, vendor.id));
    expect(left.map((r) => r.tokenHash.replace(/-[^-]+$/, ""))).toEqual(["live"]);
  });
});
