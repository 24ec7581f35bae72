// What a member of a shop may do in the dashboard, by role (CONTRACT 10, "Members"): the one place this is
// decided. Dashboard pages and their form POSTs both ask `may` (through dashboard/permission.ts),
// and so does the OAuth consent page, so a page and its form can never disagree.
//
// - owner: everything;
// - staff: the shop's daily work (orders, customers, appointments and inquiries: create, edit,
//   move statuses) and their own account; none of the owner-only actions below.

export const ROLES = ["owner", "staff"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Actions reserved to owners, each named as the dashboard section or act it guards. */
export const OWNER_ACTIONS = [
  /** API keys, webhooks, applications, connected apps. */
  "integrations",
  /** The shop's settings. */
  "settings",
  /** Inviting members, changing roles, removing members. */
  "team",
  /** Erasing a customer on request. */
  "erase",
  /** Merging two customers: it deletes one, and cannot be undone (CONTRACT 12). */
  "merge",
  /** CSV exports of orders and customers. */
  "export",
  /** Giving an OAuth application access to the shop (the consent page). */
  "oauth-consent",
  /** The shop's activity log. */
  "activity",
] as const;

export type Action = "shop-work" | (typeof OWNER_ACTIONS)[number];

const allowed: Record<Role, ReadonlySet<Action>> = {
  owner: new Set<Action>(["shop-work", ...OWNER_ACTIONS]),
  staff: new Set<Action>(["shop-work"]),
};

export function may(role: Role, action: Action): boolean {
  return allowed[role].has(action);
}
