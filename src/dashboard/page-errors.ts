// Domain errors on dashboard and tracking pages: the services throw AppError (another vendor's id
// is `not_found`, a cursor that does not decode is `validation_failed`), which the page scope's
// own handler would otherwise treat as a 500. Registered inside each page group's plugin, so it
// covers exactly those routes; anything else goes on to the page scope's handler (CSRF → 403).
import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";
import { sendPage } from "./browser-scope.ts";
import { errorPage } from "./html.ts";

export function registerPageErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof AppError && error.status === 404) {
      return sendPage(
        reply,
        404,
        errorPage("Not found", "There is nothing here. Check the link and try again."),
      );
    }
    if (error instanceof AppError && error.status < 500) {
      return sendPage(reply, error.status, errorPage("Bad request", error.message));
    }
    throw error;
  });
}
