import type { ApplicationRow } from "./applications.repository.ts";

/** The one place an application row becomes JSON (the dashboard's list, the CLI): never its secret's hash. */
export function presentApplication(row: ApplicationRow) {
  return {
    id: row.id,
    name: row.name,
    clientId: row.clientId,
    redirectUris: row.redirectUris,
    public: row.public,
    createdAt: row.createdAt.toISOString(),
  };
}

export type ApplicationJson = ReturnType<typeof presentApplication>;
