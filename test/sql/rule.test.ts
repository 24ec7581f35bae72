// One rule for SQL (docs/architecture.md): the Drizzle query builder by default, raw `sql` templates
// only inside repositories (`*.repository.ts`) and src/db/; services, presenters, pages, routes
// and the platform's other files call repositories and hold no SQL. This test reads every other
// file of src/ and fails naming each one that builds or runs SQL. `npm run check:layers`
// (.dependency-cruiser.cjs, sql-in-repositories) enforces the import half of the same rule.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Files allowed to hold SQL: repositories and the foundation they build on. */
const mayHoldSql = (file: string) => file.endsWith(".repository.ts") || file.startsWith("src/db/");

const rules: ReadonlyArray<readonly [string, RegExp]> = [
  // A value import (`import type` is no SQL: a row type, the SQL type in a signature).
  ["imports from drizzle-orm", /^\s*import\s+(?!type\s)[^;]*?\bfrom\s+["']drizzle-orm(?:\/[^"']*)?["']/m],
  [
    "imports a table or a prepared statement",
    /^\s*import\s+(?!type\s)[^;]*?\bfrom\s+["'][^"']*\/db\/(?:schema\/[^"']*|prepared\.ts)["']/m,
  ],
  ["builds an sql template", /\bsql\s*(?:`|\.(?:raw|join|identifier|placeholder|empty)\s*\()/],
  [
    "calls the query builder",
    /\b(?:db|tx)\s*\.\s*(?:select|selectDistinct|selectDistinctOn|insert|update|delete|execute|\$count)\s*\(|\b(?:db|tx)\s*\.\s*query\s*\./,
  ],
];

/** Comments may name SQL; code may not. Crude but enough here: no `//` or `/*` inside strings of src/. */
const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

function sqlRuleViolations(text: string): string[] {
  const code = withoutComments(text);
  return rules.filter(([, pattern]) => pattern.test(code)).map(([what]) => what);
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

describe("one rule for SQL: only repositories and src/db/ hold SQL", () => {
  it("no file of src/ outside *.repository.ts and src/db/ builds or runs SQL", () => {
    const offenders = sourceFiles("src")
      .filter((file) => !mayHoldSql(file))
      .flatMap((file) => {
        const found = sqlRuleViolations(fs.readFileSync(path.join(root, file), "utf8"));
        return found.length > 0 ? [`${file}: ${found.join(", ")}`] : [];
      });
    expect(
      offenders,
      "move these queries into the module's *.repository.ts (docs/architecture.md: One rule for SQL)",
    ).toEqual([]);
  });

  it("sees each way of holding SQL", () => {
    expect(sqlRuleViolations(`import { and, eq } from "drizzle-orm";`)).toEqual(["imports from drizzle-orm"]);
    expect(sqlRuleViolations(`import { type SQL, sql } from "drizzle-orm";`)).toEqual([
      "imports from drizzle-orm",
    ]);
    expect(sqlRuleViolations(`import { PgDialect } from "drizzle-orm/pg-core";`)).toEqual([
      "imports from drizzle-orm",
    ]);
    expect(sqlRuleViolations(`import {\n  orders,\n} from "../../db/schema/index.ts";`)).toEqual([
      "imports a table or a prepared statement",
    ]);
    expect(sqlRuleViolations(`import { preparedStatement } from "../db/prepared.ts";`)).toEqual([
      "imports a table or a prepared statement",
    ]);
    expect(sqlRuleViolations("const q = sql`select 1`;")).toEqual(["builds an sql template"]);
    expect(sqlRuleViolations("const q = sql.raw('select 1');")).toEqual(["builds an sql template"]);
    expect(sqlRuleViolations("await ctx.db.select().from(orders);")).toEqual(["calls the query builder"]);
    expect(sqlRuleViolations("await tx\n  .insert(orders)\n  .values(row);")).toEqual([
      "calls the query builder",
    ]);
    expect(sqlRuleViolations(`await ctx.db.execute("select 1");`)).toEqual(["calls the query builder"]);
    expect(sqlRuleViolations("await ctx.db.query.orders.findMany();")).toEqual(["calls the query builder"]);
  });

  it("lets through what is no SQL", () => {
    for (const text of [
      `import type { SQL } from "drizzle-orm";`,
      `import type { customers } from "../../db/schema/index.ts";`,
      `import type { Executor } from "../db/client.ts";`,
      "await ctx.db.transaction(async (tx) => insertOrder(tx, row));",
      "running.delete(name); hash.update(body); cipher.update(plain);",
      "// the repository runs sql`select …` and db.select() for it",
      "/* sql`x` */ const url = 'https://example.com/a';",
    ]) {
      expect(sqlRuleViolations(text), text).toEqual([]);
    }
  });
});
