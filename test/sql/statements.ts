// The hot statements, as the code builds them: every prepared statement (src/db/prepared.ts), which
// the SQL rule keeps for the measured hot paths (docs/architecture.md). Importing the repositories that
// define them registers them. `npm run sql:snapshots` writes each to test/sql/<name>.sql;
// test/sql/snapshots.test.ts fails, naming the statement, when the code builds another text.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { definedStatements } from "../../src/db/prepared.ts";
import "../../src/modules/api-keys/api-keys.repository.ts";
import "../../src/modules/customers/customers.repository.ts";
import "../../src/modules/orders/orders.repository.ts";
import "../../src/webhook-delivery/attempts-batch.repository.ts";
import "../../src/webhook-delivery/claim.repository.ts";
import "../../src/webhook-delivery/outbox.repository.ts";

export const SNAPSHOT_DIR = path.dirname(fileURLToPath(import.meta.url));
const SRC_DIR = path.resolve(SNAPSHOT_DIR, "../../src") + path.sep;

/** Each statement's snapshot file name and the text it must hold, sorted by name. */
export function snapshots(): Array<{ name: string; file: string; text: string }> {
  // Only src/'s: a test file that defines a statement of its own (test/db/generic-plans.test.ts)
  // and ran earlier in the same worker has it in the registry too.
  return [...definedStatements()]
    .filter(([, statement]) => statement.definedIn.startsWith(SRC_DIR))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, statement]) => ({
      name,
      file: path.join(SNAPSHOT_DIR, `${name}.sql`),
      text:
        `-- ${name}: written by \`npm run sql:snapshots\` from the code; do not edit.\n` +
        `-- Parameters: ${statement.parameterNames.map((p, i) => `$${i + 1} ${p}`).join(", ") || "none"}\n` +
        `${statement.text.trim()}\n`,
    }));
}

/** The snapshot files on disk. */
export function snapshotFiles(): string[] {
  return fs
    .readdirSync(SNAPSHOT_DIR)
    .filter((f) => f.endsWith(".sql"))
    .map((f) => path.join(SNAPSHOT_DIR, f));
}
