// The CLI's grammar, in-process (no database): every command parses into its request, each has a
// --help page with examples, and each request is checked by its schema, refusals naming the option.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram, type Parsed } from "../../src/cli/program.ts";
import { type CliRequest, checkRequest, commandNames, requestSchemas } from "../../src/cli/requests.ts";
import { AppError } from "../../src/errors.ts";
import { repoRoot } from "../helpers/processes.ts";

function parse(argv: string[]) {
  const holder: { parsed?: Parsed } = {};
  let out = "";
  let err = "";
  const program = buildProgram(holder, {
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
  });
  let code: string | undefined;
  try {
    program.parse(argv, { from: "user" });
  } catch (e) {
    code = (e as { code: string }).code;
  }
  return { parsed: holder.parsed, out, err, code };
}

describe("CLI grammar", () => {
  it.each(commandNames)("%s --help shows its usage and examples", (command) => {
    const r = parse([...command.split(" "), "--help"]);
    expect(r.code).toBe("commander.helpDisplayed");
    expect(r.out).toContain(`Usage: vendor-api ${command}`);
    expect(r.out).toMatch(/Examples:\n {2}\$ /);
    expect(r.out).toContain("--json");
  });

  it("parses repeatable options and positional ids", () => {
    expect(
      parse(["api-key", "create", "--vendor", "v", "--name", "n", "--scope", "a", "--scope", "b", "--json"])
        .parsed,
    ).toEqual({
      request: { command: "api-key create", vendor: "v", name: "n", scopes: ["a", "b"] },
      json: true,
    });
    expect(parse(["app", "delete", "--vendor", "v", "abc"]).parsed).toEqual({
      request: { command: "app delete", vendor: "v", id: "abc" },
      json: false,
    });
    expect(
      parse(["vendor", "create", "--name", "n", "--email", "e", "--password-stdin"]).parsed?.passwordFrom,
    ).toBe("stdin");
  });

  it("unknown commands and options are errors, not guesses", () => {
    expect(parse(["vendor", "delete"]).code).toBe("commander.unknownCommand");
    expect(parse(["vendor", "list", "--all"]).code).toBe("commander.unknownOption");
    expect(parse(["app", "delete", "--vendor", "v"]).code).toBe("commander.missingArgument");
  });
});

// The request a command line parses into is checked against its TypeBox schema (src/cli/requests.ts)
// before anything opens; each refusal names the option or argument and its rule.
function refusal(argv: string[]) {
  const { parsed, code } = parse(argv);
  expect(code, "commander accepted the line").toBeUndefined();
  if (!parsed) throw new Error("no request parsed");
  try {
    checkRequest(parsed.request);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, message: err.message, errors: err.extra.errors };
  }
  return undefined;
}

describe("CLI requests are checked by their schemas", () => {
  it("every command's request is described by a schema, and a good line passes it", () => {
    expect(Object.keys(requestSchemas)).toEqual([...commandNames]);
    for (const argv of [
      ["migrate"],
      ["vendor", "create", "--name", "Bella", "--email", "o@b.example", "--password", "a long secret"],
      ["vendor", "list"],
      ["vendor", "reset-password", "--vendor", "o@b.example"],
      ["api-key", "create", "--vendor", "v", "--name", "n", "--scope", "orders:read", "--test"],
      ["api-key", "list", "--vendor", "v"],
      ["api-key", "revoke", "--vendor", "v", "key1"],
      ["app", "create", "--vendor", "v", "--name", "n", "--redirect-uri", "https://a.example/cb"],
      ["app", "list", "--vendor", "v"],
      ["app", "delete", "--vendor", "v", "app1"],
      ["webhook", "list", "--vendor", "v"],
    ]) {
      expect(refusal(argv), argv.join(" ")).toBeUndefined();
    }
  });

  it("a bad value is refused with a message naming its option", () => {
    expect(refusal(["vendor", "list", "--json"])).toBeUndefined();
    expect(refusal(["api-key", "list", "--vendor", "   "])).toEqual({
      code: "validation_failed",
      message: "--vendor must be 1-320 characters",
      errors: [{ field: "vendor", message: "must be 1-320 characters" }],
    });
    expect(refusal(["api-key", "create", "--vendor", "v", "--name", "x".repeat(101)])?.message).toBe(
      "--name must be 1-100 characters",
    );
    expect(
      refusal([
        "api-key",
        "create",
        "--vendor",
        "v",
        "--name",
        "n",
        "--scope",
        "orders:read",
        "--scope",
        "orders:fly",
      ]),
    ).toMatchObject({
      message: expect.stringMatching(/^--scope orders:fly is not a scope \(orders:read, orders:write, /),
      errors: [{ field: "scope", message: expect.stringMatching(/^orders:fly is not a scope/) }],
    });
    expect(
      refusal(["vendor", "create", "--name", "X", "--email", "not-an-email", "--password", "short"])?.message,
    ).toBe("--email must be a valid e-mail address; --password must be 10-1024 characters");
  });

  it("a bad positional argument is named as the help names it", () => {
    expect(refusal(["api-key", "revoke", "--vendor", "v", "k".repeat(65)])).toEqual({
      code: "validation_failed",
      message: "<key-id> must be 1-64 characters",
      errors: [{ field: "key-id", message: "must be 1-64 characters" }],
    });
    expect(refusal(["app", "delete", "--vendor", "v", " "])?.message).toBe(
      "<app-id> must be 1-64 characters",
    );
  });

  it("redirect URIs: the schema's rules and the applications service's, each URI named", () => {
    expect(
      refusal([
        "app",
        "create",
        "--vendor",
        "v",
        "--name",
        "n",
        "--redirect-uri",
        "https://ok.example/cb",
        "--redirect-uri",
        "http://planner.example/cb",
      ])?.message,
    ).toBe(
      "--redirect-uri http://planner.example/cb must use https (http only on localhost, 127.0.0.1 or [::1])",
    );
    expect(
      refusal([
        "app",
        "create",
        "--vendor",
        "v",
        "--name",
        "n",
        "--redirect-uri",
        `https://a.example/${"x".repeat(2048)}`,
      ])?.errors,
    ).toContainEqual({
      field: "redirect-uri",
      message: expect.stringMatching(/ must be 1-2048 characters$/),
    });
  });

  it("what arrives over the control socket is held to the same schema: no extra keys, no other types", () => {
    const check = (request: unknown) => {
      try {
        checkRequest(request as CliRequest);
        return undefined;
      } catch (err) {
        return (err as AppError).message;
      }
    };
    expect(check({ command: "vendor list", vendorId: "someone" })).toBe("vendorId is not an accepted field");
    expect(check({ command: "api-key list" })).toBe("--vendor is required");
    expect(check({ command: "api-key create", vendor: "v", name: "n", scopes: [], test: "yes" })).toBe(
      "--test must be true or false",
    );
    expect(check({ command: "app create", vendor: "v", name: "n", redirectUris: [] })).toBe(
      "--redirect-uri is required",
    );
    expect(check({ command: "vendor drop" })).toBe("Unknown command");
    expect(check(null)).toBe("Unknown command");
  });
});

describe("what the CLI loads before it knows the answer (docs/decisions/0005)", () => {
  /** The modules a file imports at load, type-only imports aside. */
  function loadedBy(file: string): string[] {
    const source = fs.readFileSync(path.join(repoRoot, file), "utf8");
    return [...source.matchAll(/^import (?!type )[^;]*?from "([^"]+)";/gms)].map((m) => m[1] as string);
  }

  it("src/cli.ts and the grammar load commander alone: --help and usage errors open nothing", () => {
    expect(loadedBy("src/cli.ts")).toEqual(["commander", "./cli/program.ts"]);
    expect(loadedBy("src/cli/program.ts")).toEqual(["commander"]);
  });

  it("the control socket's client end loads node built-ins only", () => {
    expect(loadedBy("src/cli/control-client.ts").every((m) => m.startsWith("node:"))).toBe(true);
  });
});
