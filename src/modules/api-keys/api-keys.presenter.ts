import type { ApiKeyRow } from "./api-keys.repository.ts";

/** The one place an API key row becomes JSON (the dashboard's list, the CLI): never its hash. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.keyPrefix,
    /** A test key (`vk_test_…`): it acts for the shop's sandbox. */
    test: row.keyPrefix.startsWith("vk_test_"),
    /** null: every scope. */
    scopes: row.scopes,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

export type ApiKeyJson = ReturnType<typeof presentApiKey>;
