export * from "./customers.ts";
export * from "./events.ts";
export * from "./orders.ts";
export * from "./vendors.ts";
export * from "./webhooks.ts";
