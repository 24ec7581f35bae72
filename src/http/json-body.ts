// Request bodies under /api (CONTRACT 1): a body is refused unless it is valid UTF-8 JSON of the
// declared shape, and an empty body where an operation takes none is fine whatever the
// Content-Type (generated clients send `Content-Type: application/json` on every request).
//
// - valid UTF-8 only: a body that does not decode is invalid_json, never stored with U+FFFD;
// - an empty JSON body is `undefined` where the route takes no body or declares it optional
//   (`config.optionalBody`), and invalid_json where a body is required;
// - a non-empty body on a route that declares none (DELETE, …) is validation_failed: the client
//   meant something we would silently ignore;
// - `null` is a body like any other: the route's schema refuses it (validation_failed).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's body schema describes an optional body: no body at all means `{}`. */
    optionalBody?: boolean;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

const takesBody = (request: FastifyRequest) => request.routeOptions.schema?.body !== undefined;
const bodyRequired = (request: FastifyRequest) =>
  takesBody(request) && !request.routeOptions.config.optionalBody;

const noBodyHere = () =>
  new AppError("validation_failed", "This operation takes no request body", {
    errors: [{ field: "(body)", message: "must be empty: this operation takes no request body" }],
  });

export function registerJsonBody(scope: FastifyInstance): void {
  // Fastify's own JSON parser with its prototype-poisoning protection (`__proto__` and
  // `constructor.prototype` keys are errors), fed only text that decoded as UTF-8.
  const parseJson = scope.getDefaultJsonParser("error", "error");
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, raw, done) => {
    const bytes = raw as Buffer;
    if (bytes.length === 0) {
      if (bodyRequired(request))
        return done(new AppError("invalid_json", "The request body is empty"), undefined);
      return done(null, undefined);
    }
    if (!takesBody(request)) return done(noBodyHere(), undefined);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return done(new AppError("invalid_json", "The request body is not valid UTF-8"), undefined);
    }
    parseJson(request, text, done);
  });
  // Any other (or no) Content-Type: fine when there are no bytes and the route needs none,
  // else 415 at once, without reading the body.
  scope.addContentTypeParser("*", (request, payload, done) => {
    if (bodyRequired(request) || contentLength(request) > 0) {
      return done(new AppError("unsupported_media_type", "Send the body as application/json"), undefined);
    }
    let received = 0;
    payload.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    payload.on("error", (err) => done(err, undefined));
    payload.on("end", () =>
      received === 0
        ? done(null, undefined)
        : done(new AppError("unsupported_media_type", "Send the body as application/json"), undefined),
    );
  });
  // Optional bodies: none at all is `{}`, validated by the route's schema like any other.
  scope.addHook("preValidation", (request, _reply, done) => {
    if (request.body === undefined && takesBody(request) && request.routeOptions.config.optionalBody) {
      request.body = {};
    }
    done();
  });
}

function contentLength(request: FastifyRequest): number {
  const value = Number(request.headers["content-length"] ?? 0);
  return Number.isFinite(value) ? value : 0;
}
