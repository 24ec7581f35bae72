// Running a form action, the one way every dashboard form that redirects does it: a 303 to a
// page with a flash message, whether the action succeeded or the input was refused.
import type { FastifyReply } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { AppError, type FieldError } from "../errors.ts";
import { csrfField } from "./browser-scope.ts";
import { type Flash, setFlash } from "./flash.ts";
import { type Form, formOf } from "./form.ts";
import { html, type SafeHtml } from "./html.ts";
import { readerOf } from "./reader.ts";
import { refusalText } from "./refusal.ts";
import { keepSecretForNextPage } from "./session.ts";

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
 * Whether `error` is a refusal of what the user submitted (an AppError such as validation_failed
 * or invalid_transition). Anything else (another vendor's or an unknown id, a 5xx, a bug) goes on
 * to the page scope's error handler: not-found to its 404 page.
 */
function isRefusal(error: unknown): error is AppError {
  return error instanceof AppError && error.status !== 404 && error.status < 500;
}

/** The flash and the 303 that end every form post. */
function redirectWithFlash(
  reply: FastifyReply,
  config: Config,
  flash: Flash,
  location: string,
): FastifyReply {
  setFlash(reply, config, flash);
  return reply.code(303).header("location", location).send();
}

/**
 * Runs a form action on the posted form (read inside, so a refused field is a refusal too).
 * Success: its flash and a 303 to `done` (or where it says). A refusal: the error as a flash (in
 * the reader's language, refusal.ts) and a 303 back to `back`.
 */
export async function runAction(
  reply: FastifyReply,
  { ctx, config }: { ctx: ServiceContext; config: Config },
  paths: { done: string; back?: string },
  action: (form: Form) => Promise<Flash & { location?: string }>,
): Promise<FastifyReply> {
  try {
    const { location, secret, ...flash } = await action(formOf(reply.request));
    // A one-time secret waits server-side, sealed, for this session's next page: never a cookie.
    const kept = secret !== undefined && (await keepSecretForNextPage(ctx, reply.request, secret));
    return redirectWithFlash(
      reply,
      config,
      { ...flash, ...(kept ? { secretKept: true } : {}) },
      location ?? paths.done,
    );
  } catch (err) {
    if (!isRefusal(err)) throw err;
    // The flash is read by a person, in their language (refusal.ts).
    return redirectWithFlash(
      reply,
      config,
      { kind: "error", message: refusalText(readerOf(reply.request).t, err) },
      paths.back ?? paths.done,
    );
  }
}

/**
 * Runs a form that is shown again with its errors when refused (the create and edit forms). With
 * no errors from reading it, `save` runs: success is its flash and a 303 to its location. Else
 * `showAgain` renders the form with the errors (a refusal's join the reading's) and the status
 * to answer: 400 for reading errors, the refusal's own (409 for a taken e-mail...) otherwise.
 */
export async function saveForm(
  reply: FastifyReply,
  config: Config,
  errors: readonly FieldError[],
  save: () => Promise<{ message: string; location: string }>,
  showAgain: (status: number, errors: FieldError[]) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  if (errors.length > 0) return showAgain(400, [...errors]);
  try {
    const { message, location } = await save();
    return redirectWithFlash(reply, config, { kind: "success", message }, location);
  } catch (error) {
    if (!isRefusal(error)) throw error;
    const whole = { field: "(form)", message: refusalText(readerOf(reply.request).t, error) };
    return showAgain(error.status, error.extra.errors ?? [whole]);
  }
}
