// For dashboard pages: a preHandler that lets a signed-in vendor through (setting
// `request.dashboardSession`) and sends anyone else to /login and back to this page afterwards.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { runAsActor } from "../auth/actor.ts";
import type { ServiceContext } from "../context.ts";
import { currentSession, type DashboardSession } from "./session.ts";

declare module "fastify" {
  interface FastifyRequest {
    dashboardSession?: DashboardSession;
  }
}

export function requireSession(ctx: ServiceContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await currentSession(ctx, request);
    if (session) {
      request.dashboardSession = session;
      return;
    }
    const location = `/login?${new URLSearchParams({ return_to: request.url }).toString()}`;
    // 303 also turns a POST from an expired session into a GET of the sign-in page.
    return reply.code(303).header("location", location).send();
  };
}

/**
 * For dashboard pages, after requireSession: the signed-in person is who the activity log names
 * for the request's changes (auth/actor.ts). Callback style, so that the handler runs inside
 * runAsActor's async context.
 */
export function actAsSignedInPerson(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
) {
  const session = request.dashboardSession;
  if (session) runAsActor({ kind: "person", id: session.member.id }, done);
  else done();
}
