// What every dashboard page plugin is registered with. Its own file, so the page plugins and
// dashboard.routes.ts (which registers them) do not import each other.
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";

export interface DashboardDeps {
  ctx: ServiceContext;
  config: Config;
  /** Guesses at a member's secret on forms behind a session count with those at sign-in. */
  throttle: SignInThrottle;
}
