// The one line `npm test` ends with: which groups of tests did not run here, and why. Each group
// is skipped by its own files' `skipIf` when the machine lacks what it needs; this reporter names
// the groups whose need is missing and counts the tests the run skipped, so a green run on a
// laptop without Chromium or PostgreSQL never reads as the whole suite.
import fs from "node:fs";
import type { Reporter, TestModule } from "vitest/node";
import { onPath } from "./machine.ts";

interface Group {
  name: string;
  missing: () => boolean;
  why: string;
}

const GROUPS: Group[] = [
  {
    name: "browser tests",
    missing: () => !fs.existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"),
    why: "no Chromium at /usr/bin/chromium (apt-get install chromium)",
  },
  {
    name: "PostgreSQL-only tests",
    missing: () => !process.env.TEST_DATABASE_URL,
    why: "TEST_DATABASE_URL is not set",
  },
  {
    name: "private-cluster fault tests",
    missing: () => !fs.existsSync("/usr/lib/postgresql/15/bin/initdb"),
    why: "no initdb (PostgreSQL 15's server binaries)",
  },
  {
    name: "Redis tests",
    missing: () => onPath("redis-server") === undefined,
    why: "no redis-server on PATH (apt-get install redis-server)",
  },
  {
    name: "PgBouncer tests",
    missing: () => !process.env.TEST_DATABASE_URL || !fs.existsSync("/usr/sbin/pgbouncer"),
    why: fs.existsSync("/usr/sbin/pgbouncer") ? "they need TEST_DATABASE_URL" : "no /usr/sbin/pgbouncer",
  },
  {
    name: "full-disk test",
    missing: () => process.getuid?.() !== 0,
    why: "mounting a tmpfs needs root",
  },
];

export function skippedLine(skipped: number, groups: readonly Group[] = GROUPS): string {
  const missing = groups.filter((g) => g.missing());
  if (skipped === 0) return "Skipped: nothing; every group of tests ran.";
  const named = missing.map((g) => `${g.name} (${g.why})`).join("; ");
  return `Skipped: ${skipped} test${skipped === 1 ? "" : "s"}${named ? `: ${named}` : " (marked skip in their files)"}.`;
}

export default class SkippedGroups implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    for (const m of modules)
      for (const t of m.children.allTests()) if (t.result().state === "skipped") skipped += 1;
    process.stdout.write(`${skippedLine(skipped)}\n`);
  }
}
