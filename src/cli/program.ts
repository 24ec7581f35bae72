// The CLI's grammar (commander): commands, options, per-command help with examples. Parsing
// yields a CliRequest and never touches the database; unknown options and missing arguments end
// as a CommanderError that cli.ts reports with the usage and exit status 2.
import { Command, Option } from "commander";
import type { ListenArgs } from "./listen.ts";
import type { KeySources } from "./listen-credentials.ts";
import type { CliRequest } from "./requests.ts";

/** `listen` as the command line gave it: the key is resolved from its sources before it runs. */
export type ListenCommand = Omit<ListenArgs, "apiKey"> & { keys: Omit<KeySources, "env"> };

export interface Parsed {
  request: CliRequest;
  json: boolean;
  /** Where the password comes from when `--password` is not given. */
  passwordFrom?: "stdin" | "prompt";
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
}

/**
 * Builds the program; the action of whichever command matched stores its request in `out`, or,
 * for `listen` (an HTTP client of a running API, no database, no control socket), its arguments.
 */
export function buildProgram(
  out: { parsed?: Parsed; listen?: ListenCommand },
  write: { out: (s: string) => void; err: (s: string) => void },
) {
  const program = new Command("vendor-api")
    .description(
      "Operator CLI for vendor-api. Works whether or not the server runs: with PGlite and a " +
        "running server, the command is sent to that server through DATA_DIR/control/cli.sock.",
    )
    .usage("<command> [options]")
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeOut: write.out, writeErr: write.err })
    .addHelpText(
      "after",
      examples([
        'vendor-api vendor create --name "Bella Bridal" --email owner@bella.example --password-stdin --json',
        "vendor-api api-key create --vendor owner@bella.example --name POS --json",
        "vendor-api vendor create --help",
      ]),
    );

  const leaf = (parent: Command, name: string, summary: string) =>
    parent
      .command(name)
      .description(summary)
      .option("--json", "print one JSON document on stdout (errors too)");
  const done = (request: CliRequest, opts: { json?: boolean }, extra: Partial<Parsed> = {}) => {
    out.parsed = { request, json: opts.json === true, ...extra };
  };

  const vendor = program.command("vendor").description("vendor accounts");
  leaf(vendor, "create", "create a vendor account (the shop's dashboard sign-in)")
    .requiredOption("--name <name>", "the shop's name")
    .requiredOption("--email <email>", "the sign-in e-mail")
    .addOption(
      new Option("--password <password>", "the password (visible to other users: prefer the two below)"),
    )
    .option("--password-stdin", "read the password from standard input")
    .option("--language <code>", "the shop's language (en, de, fr, it, es, pt, nl, pl; default en)")
    .option("--time-zone <zone>", "the shop's IANA time zone (default UTC)")
    .addHelpText(
      "after",
      "\nWithout --password or --password-stdin, the password is asked for (hidden) on a terminal." +
        examples([
          'vendor-api vendor create --name "Bella Bridal" --email owner@bella.example',
          'printf %s "$PASSWORD" | vendor-api vendor create --name "Bella Bridal" --email owner@bella.example --password-stdin --json',
        ]),
    )
    .action((o) => {
      const request = {
        command: "vendor create",
        name: o.name,
        email: o.email,
        password: o.password ?? "",
        ...(o.language !== undefined ? { language: o.language } : {}),
        ...(o.timeZone !== undefined ? { timeZone: o.timeZone } : {}),
      } as const;
      done(
        request,
        o,
        o.password === undefined ? { passwordFrom: o.passwordStdin ? "stdin" : "prompt" } : {},
      );
    });
  leaf(vendor, "update", "change a shop's language or time zone")
    .requiredOption("--vendor <id|email>", "the vendor")
    .option("--language <code>", "the shop's language (en, de, fr, it, es, pt, nl, pl)")
    .option("--time-zone <zone>", "the shop's IANA time zone")
    .addHelpText(
      "after",
      examples([
        "vendor-api vendor update --vendor owner@bella.example --language de --time-zone Europe/Berlin --json",
      ]),
    )
    .action((o) =>
      done(
        {
          command: "vendor update",
          vendor: o.vendor,
          ...(o.language !== undefined ? { language: o.language } : {}),
          ...(o.timeZone !== undefined ? { timeZone: o.timeZone } : {}),
        },
        o,
      ),
    );
  leaf(vendor, "list", "list every vendor")
    .addHelpText("after", examples(["vendor-api vendor list --json"]))
    .action((o) => done({ command: "vendor list" }, o));

  leaf(vendor, "reset-password", "print a one-time password-reset link (valid one hour) to give the shop")
    .requiredOption("--vendor <id|email>", "the vendor")
    .addHelpText(
      "after",
      "\nThe link sets a new password and signs the vendor out everywhere (OAuth grants revoked too)." +
        examples(["vendor-api vendor reset-password --vendor owner@bella.example --json"]),
    )
    .action((o) => done({ command: "vendor reset-password", vendor: o.vendor }, o));

  const apiKey = program.command("api-key").description("API keys of a vendor");
  leaf(apiKey, "create", "create an API key (shown once; only its hash is stored)")
    .requiredOption("--vendor <id|email>", "the vendor")
    .requiredOption("--name <name>", "what the key is for")
    .option("--scope <scope>", "restrict the key to a scope (repeatable; default: every scope)", collect)
    .option("--test", "a test key (vk_test_…) for the shop's sandbox: its own data, never the live data")
    .addHelpText(
      "after",
      examples([
        'vendor-api api-key create --vendor owner@bella.example --name "Shop POS" --json',
        "vendor-api api-key create --vendor owner@bella.example --name reports --scope orders:read --scope customers:read",
        'vendor-api api-key create --vendor owner@bella.example --name "POS tests" --test --json',
      ]),
    )
    .action((o) =>
      done(
        {
          command: "api-key create",
          vendor: o.vendor,
          name: o.name,
          scopes: o.scope ?? [],
          ...(o.test === true ? { test: true } : {}),
        },
        o,
      ),
    );
  leaf(apiKey, "list", "list a vendor's API keys (prefixes only)")
    .requiredOption("--vendor <id|email>", "the vendor")
    .addHelpText("after", examples(["vendor-api api-key list --vendor owner@bella.example --json"]))
    .action((o) => done({ command: "api-key list", vendor: o.vendor }, o));
  leaf(apiKey, "revoke", "revoke an API key at once")
    .requiredOption("--vendor <id|email>", "the vendor")
    .argument("<key-id>", "the key's id (from api-key list)")
    .addHelpText("after", examples(["vendor-api api-key revoke --vendor owner@bella.example <key-id>"]))
    .action((id: string, o) => done({ command: "api-key revoke", vendor: o.vendor, id }, o));

  const app = program.command("app").description("OAuth applications of a vendor");
  leaf(app, "create", "register an OAuth application (client secret shown once)")
    .requiredOption("--vendor <id|email>", "the vendor")
    .requiredOption("--name <name>", "the application's name, shown on the consent page")
    .requiredOption("--redirect-uri <uri>", "an exact redirect URI (repeatable)", collect)
    .option("--public", "any shop may authorize it (default: only this vendor)")
    .addHelpText(
      "after",
      examples([
        "vendor-api app create --vendor owner@bella.example --name Planner --redirect-uri https://planner.example/callback --json",
      ]),
    )
    .action((o) =>
      done(
        {
          command: "app create",
          vendor: o.vendor,
          name: o.name,
          redirectUris: o.redirectUri ?? [],
          public: o.public === true,
        },
        o,
      ),
    );
  leaf(app, "list", "list a vendor's applications")
    .requiredOption("--vendor <id|email>", "the vendor")
    .addHelpText("after", examples(["vendor-api app list --vendor owner@bella.example --json"]))
    .action((o) => done({ command: "app list", vendor: o.vendor }, o));
  leaf(app, "delete", "delete an application and every grant and token issued to it")
    .requiredOption("--vendor <id|email>", "the vendor")
    .argument("<app-id>", "the application's id (from app list)")
    .addHelpText("after", examples(["vendor-api app delete --vendor owner@bella.example <app-id>"]))
    .action((id: string, o) => done({ command: "app delete", vendor: o.vendor, id }, o));

  const webhook = program.command("webhook").description("webhooks of a vendor");
  leaf(webhook, "list", "list a vendor's webhooks (never their secrets)")
    .requiredOption("--vendor <id|email>", "the vendor")
    .addHelpText("after", examples(["vendor-api webhook list --vendor owner@bella.example --json"]))
    .action((o) => done({ command: "webhook list", vendor: o.vendor }, o));

  program
    .command("listen")
    .description("forward a shop's live events to a local URL, signed like webhook deliveries")
    .requiredOption("--api-url <url>", "the API's base URL")
    .option(
      "--api-key <key>",
      "an API key (or OAuth token) with webhooks:read; prefer VENDOR_API_KEY, --api-key-file or --api-key-stdin (argv is visible to every user in ps)",
    )
    .option("--api-key-file <path>", "read the API key from this file")
    .option("--api-key-stdin", "read the API key from standard input")
    .requiredOption("--forward-to <url>", "where to POST each event (a local receiver)")
    .option("--events <names>", "comma-separated event names to forward (default: every event)")
    .addHelpText(
      "after",
      "\nFollows GET /api/vendor/events/stream over HTTP (no database needed) and POSTs each event to\n" +
        "--forward-to with the body and headers of a webhook delivery, signed with a secret made for\n" +
        "this run and printed at start. A dropped connection resumes with Last-Event-ID.\n" +
        "The key is read from VENDOR_API_KEY unless --api-key, --api-key-file or --api-key-stdin gives it;\n" +
        "it is sent over https only (plain http to this machine alone) and never to another origin." +
        examples([
          "VENDOR_API_KEY=vk_… vendor-api listen --api-url https://api.example --forward-to http://localhost:4000/hook",
          "vendor-api listen --api-url https://api.example --api-key-file ~/.vendor-api-key --forward-to http://localhost:4000/hook --events order.created,order.status_changed",
        ]),
    )
    .action((o) => {
      out.listen = {
        apiUrl: o.apiUrl,
        keys: { flag: o.apiKey, file: o.apiKeyFile, stdin: o.apiKeyStdin === true },
        forwardTo: o.forwardTo,
        events:
          o.events === undefined
            ? undefined
            : String(o.events)
                .split(",")
                .map((e) => e.trim())
                .filter((e) => e !== ""),
      };
    });

  leaf(program, "migrate", "apply database migrations (the server also applies them on start)")
    .addHelpText("after", examples(["DATABASE_URL=postgres://… vendor-api migrate --json"]))
    .action((o) => done({ command: "migrate" }, o));

  return program;
}
