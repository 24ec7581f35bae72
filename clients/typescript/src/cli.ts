#!/usr/bin/env node
// `vendor-api-listen`: the client package's own `listen`, a small tool of its own (Node's
// built-ins and this package only, so it starts in well under a second). The forwarding is
// forwarding.js, the same code the server's `vendor-api listen` runs.
//
//   vendor-api-listen --api-url <url> --forward-to <url> [--events a,b]   forward live events
//   vendor-api-listen --api-url <url> --print-secret                    print the signing secret
//   vendor-api-listen trigger <event> --api-url <url> --forward-to <url>  send one signed sample
//
// The key: --api-key, else VENDOR_API_KEY, else a prompt when standard input is a terminal.
// The signing secret is kept per machine and account (forwarding.js accountSecret), so a receiver
// set up once accepts every later run.
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { eventSamples } from "./event-samples.ts";
import {
  accountOf,
  accountSecret,
  apiUrlProblem,
  buildDelivery,
  configDir,
  ListenError,
  listen,
  newDeliveryId,
  postDelivery,
} from "./forwarding.js";

const HELP = `vendor-api-listen: forward a shop's live events to a local URL, signed like webhook deliveries

Usage:
  vendor-api-listen --api-url <url> --forward-to <url> [--events <names>]
  vendor-api-listen --api-url <url> --print-secret
  vendor-api-listen trigger <event> --api-url <url> --forward-to <url>

Options:
  --api-url <url>      the API's base URL (or VENDOR_API_URL)
  --api-key <key>      an API key or OAuth token with webhooks:read; else VENDOR_API_KEY, else a
                       prompt on a terminal (argv is visible to every user in ps: prefer those)
  --forward-to <url>   where to POST each event (a local receiver)
  --events <names>     comma-separated event names to forward (default: every event)
  --print-secret       print the signing secret of this machine and account, and exit
  -h, --help           this help

Each event is POSTed with the body and headers of a webhook delivery, signed (Standard Webhooks,
webhook-signature) with one secret per machine and account, kept in
${configDir()}/listen-secrets.json (mode 0600): give it to your receiver once.
A dropped connection resumes with Last-Event-ID. \`trigger\` sends a signed sample of any event
type: ${Object.keys(eventSamples).join(", ")}.
`;

class Usage extends Error {}

async function promptKey(): Promise<string> {
  // The prompt goes to stderr and the typed key is not echoed.
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const output = rl as unknown as { _writeToOutput?: (s: string) => void };
  process.stderr.write("API key: ");
  output._writeToOutput = () => {};
  try {
    return await new Promise<string>((resolve) => rl.question("", resolve));
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}

async function apiKeyOf(flag: string | undefined): Promise<string> {
  const key = (flag ?? process.env.VENDOR_API_KEY ?? (process.stdin.isTTY ? await promptKey() : "")).trim();
  if (!key)
    throw new Usage("no API key: set VENDOR_API_KEY, pass --api-key, or run on a terminal to be asked");
  return key;
}

function url(value: string | undefined, option: string): string {
  if (!value) throw new Usage(`${option} is required`);
  if (!/^https?:$/.test(URL.parse(value)?.protocol ?? ""))
    throw new Usage(`${option} must be an http(s) URL`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "api-url": { type: "string" },
      "api-key": { type: "string" },
      "forward-to": { type: "string" },
      events: { type: "string" },
      "print-secret": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const [command, eventType, ...extra] = positionals;
  if (command !== undefined && command !== "trigger") throw new Usage(`unknown command ${command}`);
  if (command === "trigger" && (!eventType || extra.length > 0))
    throw new Usage("trigger takes one event name");
  if (command === "trigger" && !((eventType ?? "") in eventSamples)) {
    throw new Usage(`trigger: ${eventType} is no event; one of ${Object.keys(eventSamples).join(", ")}`);
  }
  const apiUrl = url(values["api-url"] ?? process.env.VENDOR_API_URL, "--api-url");
  const refused = apiUrlProblem(apiUrl);
  if (refused) throw new Usage(`--api-url ${refused}`);
  const forwardTo = values["print-secret"] ? "" : url(values["forward-to"], "--forward-to");
  const apiKey = await apiKeyOf(values["api-key"]);
  const secret = accountSecret(apiUrl, await accountOf(apiUrl, apiKey));

  if (values["print-secret"]) {
    process.stdout.write(`${secret}\n`);
    return 0;
  }
  if (command === "trigger") {
    const type = eventType as keyof typeof eventSamples;
    const eventId = `evt_${randomBytes(12).toString("hex")}`;
    const request = buildDelivery({
      deliveryId: newDeliveryId(),
      eventId,
      eventType: type,
      data: eventSamples[type],
      secret,
      sentAt: new Date(),
    });
    const result = await postDelivery(forwardTo, request, {
      userAgent: `vendor-api-webhooks/1.0 (+${new URL(apiUrl).origin}; vendor-api-listen trigger)`,
    });
    const answer = result.statusCode === undefined ? `error: ${result.error}` : String(result.statusCode);
    process.stdout.write(
      `${new Date().toISOString()}  ${type} ${eventId}  -> POST ${forwardTo} [${answer}] ${result.durationMs} ms\n`,
    );
    return result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300 ? 0 : 1;
  }

  const events = values.events
    ?.split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  const unknown = (events ?? []).filter((e) => !(e in eventSamples));
  if (unknown.length > 0) throw new Usage(`--events names no event: ${unknown.join(", ")}`);
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  process.stdout.write(
    `Forwarding events from ${new URL(apiUrl).origin} to ${forwardTo}; signing secret ${secret}\n`,
  );
  await listen(
    { apiUrl, apiKey, forwardTo, events, secret, tool: "vendor-api-listen" },
    {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      signal: stop.signal,
    },
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const usage = err instanceof Usage || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`vendor-api-listen: ${err instanceof Error ? err.message : String(err)}\n`);
    if (usage) process.stderr.write("Run vendor-api-listen --help for usage.\n");
    process.exitCode = usage ? 2 : err instanceof ListenError ? 1 : 1;
  },
);
