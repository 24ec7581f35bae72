// Reading a sync list (updatedSince / since) in a test. A sync list returns only rows stamped at or
// before the sync horizon, the start of the oldest transaction still running in the database
// (README, "Incremental sync"). On the shared PostgreSQL of a test run, another file's transaction
// can hold the horizon back for a moment, so the test's newest rows show up a little later: the
// lossless-sync promise. This reads the list until `ready` holds (then the test asserts exactly
// what it always did), or gives the last answer after `timeoutMs`.
import type { ApiResponse } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";

export async function readSyncList(
  t: TestApp,
  path: string,
  key: string,
  ready: (body: any) => boolean,
  timeoutMs = 10_000,
): Promise<ApiResponse> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.api.get(path, { key });
    if (res.status !== 200 || ready(res.body) || Date.now() > until) return res;
    await new Promise((r) => setTimeout(r, 50));
  }
}
