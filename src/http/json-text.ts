import type { FastifyReply } from "fastify";

/**
 * Send JSON that the database already rendered (the order presenter). Fastify sends a string with
 * a JSON content type as is; the route's response schema still documents the shape, and the SQL
 * presenter builds exactly that shape, field by field.
 */
export function sendJsonText(reply: FastifyReply, json: string) {
  return reply.type("application/json; charset=utf-8").send(json as never);
}
