export * from "./appointments.ts";
export * from "./customers.ts";
export * from "./events.ts";
export * from "./idempotency.ts";
export * from "./inquiries.ts";
export * from "./oauth.ts";
export * from "./orders.ts";
export * from "./vendors.ts";
