import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Database } from "../db/client.ts";
import { problemResponses } from "./common-schemas.ts";
import { sendProblem } from "./error-handler.ts";

export function registerHealthRoutes(app: FastifyInstance, database: Database, publicUrl: string): void {
  const Status = Type.Object({ status: Type.String() });
  app.get(
    "/health",
    {
      schema: {
        tags: ["Operations"],
        summary: "Liveness: the server accepts requests",
        response: { 200: Status },
      },
    },
    async () => ({ status: "ok" }),
  );
  app.get(
    "/ready",
    {
      schema: {
        tags: ["Operations"],
        summary: "Readiness: the database answers too",
        response: { 200: Status, ...problemResponses(503) },
      },
    },
    async (request, reply) => {
      try {
        await database.ping();
        return { status: "ok" };
      } catch (err) {
        request.log.warn({ err }, "readiness check failed");
        reply.header("retry-after", "5");
        return sendProblem(publicUrl, request, reply, "unavailable", "The database does not answer");
      }
    },
  );
}
