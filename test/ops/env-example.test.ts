// .env.example is the operator's list of settings: it names every variable config.ts reads, its
// defaults are values config.ts accepts, and Node's own --env-file reads it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { variables } from "../../src/config/variables.ts";
import { loadConfig } from "../../src/config.ts";
import { repoRoot } from "../helpers/processes.ts";

const example = fs.readFileSync(path.join(repoRoot, ".env.example"), "utf8");
/** The example's commented `# NAME=value` lines, uncommented (trailing remarks dropped). */
const uncommented = example
  .split("\n")
  .map((line) => /^# ([A-Z][A-Z0-9_]+)=(\S*)/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => `${m[1]}=${m[2]}`)
  .join("\n");

describe(".env.example", () => {
  it("names every variable that src/config.ts reads", () => {
    // The declared variables, and any name the configuration's sources read past the declaration.
    const sources = [
      "config.ts",
      ...fs.readdirSync(path.join(repoRoot, "src/config")).map((f) => `config/${f}`),
    ];
    const source = sources
      .map((file) => fs.readFileSync(path.join(repoRoot, "src", file), "utf8"))
      .join("\n");
    const read = new Set([
      ...Object.keys(variables),
      ...[...source.matchAll(/env\.([A-Z][A-Z0-9_]+)|\(\s*"([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1] ?? m[2]),
    ]);
    const listed = new Set(Object.keys(parseEnv(uncommented)));
    expect([...read].filter((name) => !listed.has(name as string))).toEqual([]);
  });

  it("shows values the configuration accepts", () => {
    const env = parseEnv(uncommented);
    // The examples that need a server of their own are left out; the rest are the defaults.
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    expect(() => loadConfig({ ...env, SESSION_SECRET: "x".repeat(32) })).not.toThrow();
  });

  it("is read by node --env-file as it is", () => {
    const out = execFileSync(
      process.execPath,
      [
        `--env-file=${path.join(repoRoot, ".env.example")}`,
        "-e",
        "process.stdout.write(String(process.env.PORT))",
      ],
      { env: { PATH: process.env.PATH } },
    );
    // Every line is commented out: nothing is set until the operator uncomments it.
    expect(out.toString()).toBe("undefined");
  });
});

describe(".env.example is consistent", () => {
  const names = example
    .split("\n")
    .map((line) => /^# ([A-Z][A-Z0-9_]+)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);

  it("lists each variable once", () => {
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it("every value it shows is the default (issue 24 item 12: OAUTH_RATE_LIMIT_PER_MINUTE said 300 and 60)", () => {
    const env = parseEnv(uncommented);
    // Examples of a setting to add, not defaults: PUBLIC_URL's and MAIL_FROM's defaults are derived,
    // not set, and without SMTP_URL mail is written as files.
    for (const name of ["DATABASE_URL", "REDIS_URL", "PUBLIC_URL", "SMTP_URL", "MAIL_FROM"]) delete env[name];
    const tty = { stdoutIsTTY: false };
    expect(loadConfig(env, {}, tty)).toEqual(loadConfig({ NODE_ENV: env.NODE_ENV }, {}, tty));
  });
});
