// The operator CLI (CONTRACT 9): `npm run cli -- <command>` or `npx vendor-api <command>`.
// With --json, stdout carries exactly one JSON document, the answer or `{ "error": … }`.
// Exit status: 0 done, 1 the command failed, 2 the command line is wrong (nothing was opened).
//
// What runs before the answer is known stays light (docs/decisions/0005): the grammar (commander)
// only, so `--help` and a wrong command line cost no more than Node's start. Everything else is
// imported when its command runs: the request's checks, the control socket's client (a running
// PGlite server is asked before the database layer loads), and the database and services last.
import { CommanderError } from "commander";
import type { ControlAnswer } from "./cli/control-client.ts";
import type { ListenCommand, Parsed } from "./cli/program.ts";
import { buildProgram } from "./cli/program.ts";
import type { FieldError } from "./errors.ts";

class Failure extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    /** Already written to stderr (commander's message and usage). */
    readonly reported = false,
  ) {
    super(message);
  }
}

async function run(argv: string[]): Promise<{ result: unknown; text: string } | undefined> {
  const holder: { parsed?: Parsed; listen?: ListenCommand } = {};
  const json = argv.includes("--json");
  const program = buildProgram(holder, {
    out: (s) => process.stdout.write(s),
    // With --json, commander's own messages would break the one-document promise.
    err: (s) => (json ? undefined : process.stderr.write(s)),
  });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return undefined;
      throw new Failure(2, "usage", err.message.replace(/^error: /, ""), undefined, true);
    }
    throw err;
  }
  if (holder.listen) {
    // An HTTP client only: no configuration, no database, no control socket.
    await runListen(holder.listen);
    return undefined;
  }
  const parsed = holder.parsed;
  if (!parsed) return undefined;
  const { request } = parsed;

  if (request.command === "vendor create" && parsed.passwordFrom) {
    const { promptPassword, readPasswordFromStdin } = await import("./cli/password.ts");
    if (parsed.passwordFrom === "stdin") request.password = await readPasswordFromStdin();
    else if (process.stdin.isTTY)
      request.password = await promptPassword("Password (10 characters or more): ");
    else
      throw new Failure(2, "usage", "no terminal to ask for the password on: pass it with --password-stdin");
  }
  const { checkRequest } = await import("./cli/requests.ts");
  const { AppError } = await import("./errors.ts");
  try {
    checkRequest(request);
  } catch (err) {
    if (err instanceof AppError) throw new Failure(2, "usage", err.message, err.extra.errors);
    throw err;
  }

  const { ConfigError, loadConfig } = await import("./config.ts");
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new Failure(1, "invalid_configuration", err.message);
    throw err;
  }
  if (!config.databaseUrl) {
    // A running PGlite server answers on its control socket: asked first, before the database
    // layer (PGlite, Drizzle, the services) is loaded only to find the directory locked.
    const { tryServer } = await import("./cli/control-client.ts");
    const answer = await tryServer(config.dataDir, request);
    if (answer) return fromServer(answer);
  }
  const [{ openDatabase, targetFromConfig }, { DataDirLockedError }] = await Promise.all([
    import("./db/client.ts"),
    import("./db/data-dir-lock.ts"),
  ]);
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(targetFromConfig(config), { poolSize: 2 });
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    // A server holds the PGlite directory but did not answer yet (still starting): wait for it.
    const { sendToServer } = await import("./cli/control-client.ts");
    const answer = await sendToServer(config.dataDir, request);
    if (!answer) throw new Failure(1, "data_dir_locked", err.message);
    return fromServer(answer);
  }
  try {
    const [{ runMigrations }, { executeCommand }, { serviceContext }] = await Promise.all([
      import("./db/migrate.ts"),
      import("./cli/commands.ts"),
      import("./context.ts"),
    ]);
    await runMigrations(database);
    return await executeCommand(serviceContext({ config, database }), request, config);
  } catch (err) {
    if (err instanceof AppError) throw new Failure(1, err.code, err.message, err.extra.errors);
    throw err;
  } finally {
    await database.close();
  }
}

function fromServer(answer: ControlAnswer): { result: unknown; text: string } {
  if (!answer.ok) {
    throw new Failure(1, answer.error.code, answer.error.message, answer.error.errors as FieldError[]);
  }
  return answer;
}

async function runListen(command: ListenCommand): Promise<void> {
  const [
    { ListenError, listen },
    { apiUrlProblem, ListenUsageError, resolveListenKey },
    { readPasswordFromStdin },
    { listenKeyFromEnvironment },
    { isEventType },
  ] = await Promise.all([
    import("./cli/listen.ts"),
    import("./cli/listen-credentials.ts"),
    import("./cli/password.ts"),
    import("./config.ts"),
    import("./modules/events/catalog.ts"),
  ]);
  const { keys, ...rest } = command;
  const apiUrlRefused = apiUrlProblem(rest.apiUrl);
  if (apiUrlRefused) throw new Failure(2, "usage", `--api-url ${apiUrlRefused}`);
  if (!/^https?:$/.test(URL.parse(rest.forwardTo)?.protocol ?? "")) {
    throw new Failure(2, "usage", "--forward-to must be an http(s) URL");
  }
  let apiKey: string;
  try {
    apiKey = await resolveListenKey({ ...keys, env: listenKeyFromEnvironment() }, readPasswordFromStdin);
  } catch (err) {
    if (err instanceof ListenUsageError) throw new Failure(2, "usage", err.message);
    throw err;
  }
  const args = { ...rest, apiKey };
  const unknown = (args.events ?? []).filter((e) => !isEventType(e));
  if (unknown.length > 0) throw new Failure(2, "usage", `--events names no event: ${unknown.join(", ")}`);
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  try {
    await listen(args, {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      signal: stop.signal,
    });
  } catch (err) {
    if (err instanceof ListenError) throw new Failure(1, "listen_refused", err.message);
    throw err;
  }
}

const argv = process.argv.slice(2);
const json = argv.includes("--json");
run(argv).then(
  (answer) => {
    if (answer) process.stdout.write(json ? `${JSON.stringify(answer.result)}\n` : `${answer.text}\n`);
  },
  (err: unknown) => {
    const failure =
      err instanceof Failure
        ? err
        : new Failure(1, "internal_error", err instanceof Error ? err.message : String(err));
    if (json) {
      const { code, message, errors } = failure;
      process.stdout.write(
        `${JSON.stringify({ error: { code, message, ...(errors ? { errors } : {}) } })}\n`,
      );
    } else if (!failure.reported) {
      const hint =
        failure.code === "usage"
          ? `\n(run vendor-api ${argv
              .filter((a) => !a.startsWith("-"))
              .slice(0, 2)
              .join(" ")} --help for usage)`
          : "";
      console.error(`error: ${failure.message}${hint}`);
    }
    process.exitCode = failure.exitCode;
  },
);
