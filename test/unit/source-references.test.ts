// References a clone can follow: the code cites the contract (`CONTRACT N`), a decision record
// (`docs/decisions/NNNN`) or states its rule; never an issue number of a tracker the clone does
// not have, nor a file outside the repository.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.(ts|js|mjs|css|html)$/.test(entry.name) ? [file] : [];
  });

const unfollowable: ReadonlyArray<readonly [string, RegExp]> = [
  ["cites an issue of our tracker", /\bissue \d+/i],
  ["names a file outside the repository", /\.\.\/shared\/|\/work\/|STACK-NOTES/],
];

describe("references in src/", () => {
  it("cite the contract, a decision record or the rule itself, never an issue or an outside file", () => {
    const found: string[] = [];
    for (const file of sourceFiles("src")) {
      const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const [what, pattern] of unfollowable)
          if (pattern.test(line)) found.push(`${file}:${i + 1} ${what}`);
      });
    }
    expect(found).toEqual([]);
  });

  it("find a decision record for every docs/decisions/NNNN they cite", () => {
    const records = new Set(
      fs.readdirSync(path.join(root, "docs/decisions")).map((name) => name.slice(0, 4)),
    );
    const missing: string[] = [];
    for (const file of sourceFiles("src")) {
      for (const [, number] of fs
        .readFileSync(path.join(root, file), "utf8")
        .matchAll(/docs\/decisions\/(\d{4})/g))
        if (!records.has(number as string)) missing.push(`${file} cites ${number}`);
    }
    expect(missing).toEqual([]);
  });
});
