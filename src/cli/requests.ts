// What an operator asked the CLI to do, as plain data. Parsing (program.ts) produces one; it is
// checked here before any database opens, then run in this process or, when a running server
// holds the PGlite directory, sent to that server over its control socket (control-socket.ts).
import { isScope } from "../auth/scopes.ts";
import { AppError, type FieldError } from "../errors.ts";
import { redirectUriProblem } from "../modules/applications/applications.service.ts";

export type CliRequest =
  | { command: "migrate" }
  | { command: "vendor create"; name: string; email: string; password: string }
  | { command: "vendor list" }
  | { command: "vendor reset-password"; vendor: string }
  | { command: "api-key create"; vendor: string; name: string; scopes: string[]; test?: boolean }
  | { command: "api-key list"; vendor: string }
  | { command: "api-key revoke"; vendor: string; id: string }
  | { command: "app create"; vendor: string; name: string; redirectUris: string[]; public?: boolean }
  | { command: "app list"; vendor: string }
  | { command: "app delete"; vendor: string; id: string }
  | { command: "webhook list"; vendor: string };

export const commandNames: ReadonlyArray<CliRequest["command"]> = [
  "migrate",
  "vendor create",
  "vendor list",
  "vendor reset-password",
  "api-key create",
  "api-key list",
  "api-key revoke",
  "app create",
  "app list",
  "app delete",
  "webhook list",
];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The checks that need no database, so a typo fails at once (and not after PGlite's seconds of
 * start-up). The services repeat them: they are the authority; this is the early answer.
 * Also the server's guard on what arrives over the control socket.
 */
export function checkRequest(request: CliRequest): void {
  const errors: FieldError[] = [];
  const r = request as Record<string, unknown>;
  const nonEmpty = (field: string, max = 1024) => {
    const v = r[field];
    if (typeof v !== "string" || v.trim() === "" || v.length > max)
      errors.push({ field, message: `must be 1-${max} characters` });
  };
  if (!commandNames.includes(request.command)) throw new AppError("validation_failed", "Unknown command");
  if ("vendor" in request) nonEmpty("vendor", 320);
  if ("id" in request) nonEmpty("id", 64);
  if ("name" in request) nonEmpty("name", 100);
  if (request.command === "vendor create") {
    if (!EMAIL.test(request.email ?? ""))
      errors.push({ field: "email", message: "must be a valid e-mail address" });
    if (
      typeof request.password !== "string" ||
      request.password.length < 10 ||
      request.password.length > 1024
    )
      errors.push({ field: "password", message: "must be 10-1024 characters" });
  }
  if (request.command === "api-key create") {
    const unknown = (request.scopes ?? []).filter((s) => !isScope(s));
    if (unknown.length > 0) errors.push({ field: "scope", message: `unknown scope ${unknown.join(", ")}` });
    if (request.test !== undefined && typeof request.test !== "boolean")
      errors.push({ field: "test", message: "must be true or false" });
  }
  if (request.command === "app create") {
    const uris = request.redirectUris ?? [];
    if (uris.length === 0) errors.push({ field: "redirect-uri", message: "is required" });
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) errors.push({ field: "redirect-uri", message: `${uri} ${problem}` });
    }
  }
  if (errors.length > 0) {
    throw new AppError("validation_failed", errors.map((e) => `--${e.field} ${e.message}`).join("; "), {
      errors,
    });
  }
}
