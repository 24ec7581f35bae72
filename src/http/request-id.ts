import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echo a caller's X-Request-Id when it is 1-128 safe characters (CONTRACT 1), else mint one. */
export function genReqId(req: IncomingMessage): string {
  const inbound = req.headers["x-request-id"];
  return typeof inbound === "string" && SAFE_ID.test(inbound) ? inbound : randomUUID();
}
