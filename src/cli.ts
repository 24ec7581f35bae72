// The operator CLI (CONTRACT 9): `npm run cli -- <command>` or `npx vendor-api <command>`.
// With --json, stdout carries exactly one JSON document; messages go to stderr.
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { serviceContext } from "./context.ts";
import { type Database, openDatabase, targetFromConfig } from "./db/client.ts";
import { DataDirLockedError } from "./db/data-dir-lock.ts";
import { runMigrations } from "./db/migrate.ts";
import { AppError } from "./errors.ts";
import { createApiKey } from "./modules/api-keys/api-keys.service.ts";
import { createApplication } from "./modules/applications/applications.service.ts";
import { createVendor, findVendor } from "./modules/vendors/vendors.service.ts";

const usage = `Usage: vendor-api <command> [options] [--json]

Commands:
  vendor create --name N --email E --password P
  api-key create --vendor <id|email> --name N [--scope S ...]
  app create --vendor <id|email> --name N --redirect-uri U [--redirect-uri U2 ...]
  migrate

With PGlite (no DATABASE_URL) stop the server first: one process may open the data directory.`;

class UsageError extends Error {}

type Output = { json: boolean };

function print(out: Output, value: Record<string, unknown>, human: string): void {
  process.stdout.write(out.json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "boolean", default: false },
      name: { type: "string" },
      email: { type: "string" },
      password: { type: "string" },
      vendor: { type: "string" },
      scope: { type: "string", multiple: true },
      "redirect-uri": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals.join(" ");
  if (values.help || !command) {
    console.log(usage);
    return;
  }
  const out = { json: values.json ?? false };
  const known = ["vendor create", "api-key create", "app create", "migrate"];
  if (!known.includes(command)) throw new UsageError(`Unknown command "${command}"`);

  const config = loadConfig();
  const database: Database = await openDatabase(targetFromConfig(config), { poolSize: 2 });
  try {
    await runMigrations(database);
    const ctx = serviceContext({ config, database });
    switch (command) {
      case "migrate":
        print(out, { migrated: true }, "Migrations applied.");
        break;
      case "vendor create": {
        const vendor = await createVendor(ctx, {
          name: required(values, "name"),
          email: required(values, "email"),
          password: required(values, "password"),
        });
        print(
          out,
          { id: vendor.id, name: vendor.name, email: vendor.email },
          `Created vendor ${vendor.id} (${vendor.email})`,
        );
        break;
      }
      case "api-key create": {
        const ref = required(values, "vendor");
        const vendor = await findVendor(ctx, ref);
        if (!vendor) throw new UsageError(`No vendor with id or e-mail "${ref}"`);
        const { row, key } = await createApiKey(ctx, {
          vendorId: vendor.id,
          name: required(values, "name"),
          scopes: values.scope,
        });
        print(out, { id: row.id, key }, `Created API key ${row.id}. It is shown only now:\n${key}`);
        break;
      }
      case "app create": {
        const ref = required(values, "vendor");
        const vendor = await findVendor(ctx, ref);
        if (!vendor) throw new UsageError(`No vendor with id or e-mail "${ref}"`);
        const redirectUris = values["redirect-uri"] ?? [];
        if (redirectUris.length === 0) throw new UsageError("--redirect-uri is required");
        const { application, clientSecret } = await createApplication(ctx, vendor.id, {
          name: required(values, "name"),
          redirectUris,
        });
        print(
          out,
          { clientId: application.clientId, clientSecret },
          `Created application ${application.name}.\nClient ID: ${application.clientId}\nClient secret (shown only now): ${clientSecret}`,
        );
        break;
      }
    }
  } finally {
    await database.close();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\n\n${usage}`);
    process.exit(2);
  }
  if (err instanceof AppError) {
    const fields = (err.extra.errors ?? []).map((e) => `  ${e.field}: ${e.message}`).join("\n");
    console.error(fields ? `${err.message}\n${fields}` : err.message);
    process.exit(1);
  }
  console.error(err instanceof DataDirLockedError ? err.message : err);
  process.exit(1);
});
