// The scope vocabulary of CONTRACT 3, with the words the consent page shows for each.
export const scopeDescriptions = {
  "orders:read": "Read your orders and their status history",
  "orders:write": "Create orders and update their status and details",
  "customers:read": "Read your customers' details",
  "customers:write": "Create, update and erase customers",
  "appointments:read": "Read your appointments",
  "appointments:write": "Create, update and delete appointments",
  "webhooks:read": "See your webhooks and their delivery logs",
  "webhooks:write": "Register, change and delete webhooks",
  "inquiries:read": "Read inquiries sent to you",
  "profile:read": "Read your vendor profile",
} as const;

export type Scope = keyof typeof scopeDescriptions;
export const allScopes = Object.keys(scopeDescriptions) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(scopeDescriptions, value);
}
