// The operator's two lines per database outage: "database unreachable" (error, with the first
// failure's reason) when it begins and "database back" (warn, with how long it lasted) when a
// connection or a ping succeeds again. The refused requests in between log one short line each
// (error-handler.ts). Warn, not info, so that a LOG_LEVEL=warn deployment sees both ends.
import type { FastifyInstance } from "fastify";
import type { DatabaseAvailability } from "../db/availability.ts";

export function registerAvailabilityLog(app: FastifyInstance, availability: DatabaseAvailability): void {
  const unsubscribe = availability.subscribe((change) => {
    if (change.state === "unreachable") app.log.error({ reason: change.reason }, "database unreachable");
    else app.log.warn({ downForMs: change.downForMs }, "database back");
  });
  app.addHook("onClose", async () => {
    unsubscribe();
  });
}
