// Defaults that other modules show or compare against, besides the declaration that applies them
// (src/config/variables.ts). src/config.ts exports them all.

/**
 * The worker's probe port unless WORKER_PORT says otherwise. A worker finding it taken (another
 * worker on this host) serves its probes on any free port and logs which; any other port taken
 * is an operator's error.
 */
export const DEFAULT_WORKER_PORT = 3001;

/**
 * The default webhook retry schedule (CONTRACT 12, "as Stripe's"): 9 retries after 1 min, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h, so a delivery's last attempt comes about three
 * days (71.6 h, up to 10% jitter more) after its first, and a receiver down over a weekend still
 * gets it. docs/guides/webhooks.md prints this table.
 */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 72_000_000,
];

/** The product's name when PRODUCT_NAME is unset: neutral, no shop's and not the service's own. */
export const DEFAULT_PRODUCT_NAME = "Atelier Desk";

export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];
