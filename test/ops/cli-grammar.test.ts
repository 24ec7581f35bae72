// The CLI's grammar, in-process (no database): every command parses into its request, and each
// has a --help page with examples.
import { describe, expect, it } from "vitest";
import { buildProgram, type Parsed } from "../../src/cli/program.ts";
import { commandNames } from "../../src/cli/requests.ts";

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
