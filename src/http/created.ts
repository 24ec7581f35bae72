import type { FastifyReply } from "fastify";

/** A 201 names what it created (CONTRACT 1, RFC 9110 15.3.2): `Location` is the resource's path. */
export function created(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(201).header("location", location);
}
