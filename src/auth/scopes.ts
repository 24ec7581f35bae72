// The scope vocabulary of CONTRACT 3. What each scope allows, in words, has one home: the
// catalogues' `scopes` section (src/i18n), key `scopes.<resource>.<read|write>`. The dashboard
// and the consent page show it in the reader's language (scopeDescription); the OpenAPI document
// reads the English one (scopeDescriptions).
import { baseCatalogue } from "../i18n/catalogue.ts";
import type { Translator } from "../i18n/translator.ts";

const scopeList = [
  "orders:read",
  "orders:write",
  "customers:read",
  "customers:write",
  "appointments:read",
  "appointments:write",
  "webhooks:read",
  "webhooks:write",
  "inquiries:read",
  "profile:read",
] as const;

export type Scope = (typeof scopeList)[number];
export const allScopes: Scope[] = [...scopeList];
const known: ReadonlySet<string> = new Set(scopeList);

export function isScope(value: string): value is Scope {
  return known.has(value);
}

const keyOf = (scope: Scope) => `scopes.${scope.replace(":", ".")}`;

/** What a scope allows, in the reader's language ("orders:read" → "Read your orders…"). */
export function scopeDescription(t: Translator, scope: Scope): string {
  return t.t(keyOf(scope));
}

/** Each scope's description in English, for developers (the OpenAPI document). */
export const scopeDescriptions: Readonly<Record<Scope, string>> = Object.fromEntries(
  scopeList.map((scope) => [scope, baseCatalogue().get(keyOf(scope)) ?? scope]),
) as Record<Scope, string>;
