// What the integration and account pages share: reading form fields, one-button forms, and running an action so it always ends in a 303 to a page with a flash message.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError, type FieldError } from "../errors.ts";
import { csrfField } from "./browser-scope.ts";
import { type Flash, setFlash } from "./flash.ts";
import { html, type SafeHtml } from "./html.ts";
import { keepSecretForNextPage } from "./session.ts";

export type Form = Record<string, string | string[] | undefined>;

export function formOf(request: FastifyRequest): Form {
  return (request.body ?? {}) as Form;
}

/** One text field (the first if repeated); NUL never reaches the database (no 500 from input). */
export function field(form: Form, name: string): string {
  const value = form[name];
  const one = Array.isArray(value) ? value[0] : value;
  return (one ?? "").replaceAll("\u0000", "");
}

/** Every value of a repeated field (checkboxes). */
export function fields(form: Form, name: string): string[] {
  const value = form[name];
  if (value === undefined) return [];
  return [value].flat().map((v) => v.replaceAll("\u0000", ""));
}

/** A one-button POST form (revoke, delete, rotate...). */
export function actionButton(
  csrf: string,
  action: string,
  label: string,
  options: { danger?: boolean; extra?: SafeHtml } = {},
): SafeHtml {
  return html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}${options.extra ?? ""}<button type="submit" ${options.danger ? html`class="danger"` : ""}>${label}</button></form>`;
}

/**
 * Runs a form action. Success: its flash and a 303 to `done` (or where it says). A refused input
 * (an AppError such as validation_failed): the error as a flash and a 303 back to `back`.
 * Not found (another vendor's id): the page scope's 404 page.
 */
export async function runAction(
  reply: FastifyReply,
  { ctx, config }: { ctx: ServiceContext; config: Config },
  paths: { done: string; back?: string },
  action: () => Promise<Flash & { location?: string }>,
): Promise<FastifyReply> {
  try {
    const { location, secret, ...flash } = await action();
    // A one-time secret waits server-side, sealed, for this session's next page: never a cookie.
    const kept = secret !== undefined && (await keepSecretForNextPage(ctx, reply.request, secret));
    setFlash(reply, config, { ...flash, ...(kept ? { secretKept: true } : {}) });
    return reply
      .code(303)
      .header("location", location ?? paths.done)
      .send();
  } catch (err) {
    // Not found (another vendor's id) goes on to the page scope's 404 page.
    if (err instanceof AppError && err.status !== 404) {
      setFlash(reply, config, { kind: "error", message: err.message });
      return reply
        .code(303)
        .header("location", paths.back ?? paths.done)
        .send();
    }
    throw err;
  }
}

/**
 * A service's refusal of a submitted form, as the status to answer and the errors to mark on the
 * form. Anything that is not a mistake in the form (another vendor's or an unknown id, a 5xx, a
 * bug) is rethrown for the page scope's error handler.
 */
export function formRefusal(error: unknown): { status: number; errors: FieldError[] } {
  if (!(error instanceof AppError) || error.status === 404 || error.status >= 500) throw error;
  return {
    status: error.status,
    errors: error.extra.errors ?? [{ field: "(form)", message: error.message }],
  };
}
