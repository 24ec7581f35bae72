// The hot statements' SQL is checked in (test/sql/<name>.sql), as immich's @GenerateSql keeps its
// queries: an edit that changes what PostgreSQL plans shows in the diff, and this test fails,
// naming the statement, until `npm run sql:snapshots` writes the new text for review.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { snapshotFiles, snapshots } from "./statements.ts";

const statements = snapshots();

describe("hot SQL snapshots (test/sql/*.sql)", () => {
  it("covers the hot paths: order create, status move, order list, webhook claim, release and batch record", () => {
    const names = statements.map((s) => s.name);
    for (const name of [
      "insert_order_for_customer",
      "move_order_status",
      "list_orders_first_page_version",
      "webhook_release_claims",
      "webhook_record_batch",
    ]) {
      expect(names).toContain(name);
    }
    expect(
      names.some((n) => n.startsWith("list_orders_first_page") && n !== "list_orders_first_page_version"),
    ).toBe(true);
    expect(names.some((n) => n.startsWith("webhook_claim"))).toBe(true);
  });

  it.each(statements.map((s) => [s.name, s] as const))("%s is the SQL checked in", (name, s) => {
    const checkedIn = fs.existsSync(s.file) ? fs.readFileSync(s.file, "utf8") : undefined;
    expect(
      checkedIn,
      `the statement ${name} is not the SQL in test/sql/${name}.sql: review the change, then run npm run sql:snapshots`,
    ).toBe(s.text);
  });

  it("has no snapshot of a statement the code no longer defines", () => {
    const known = new Set(statements.map((s) => s.file));
    const stale = snapshotFiles().filter((f) => !known.has(f));
    expect(
      stale.map((f) => path.basename(f)),
      "run npm run sql:snapshots to remove them",
    ).toEqual([]);
  });
});
