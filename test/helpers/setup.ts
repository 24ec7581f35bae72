// Runs before every test file (vitest.config.ts setupFiles). Opening the worker's shared PGlite
// here, under the hook timeout, keeps its one-off ~4 s start out of any single test's 30 s budget.
import { afterAll, beforeAll, expect } from "vitest";
import { endCpuLog, startCpuLog } from "./cpu-log.ts";
import { warmTestDatabase } from "./test-app.ts";

beforeAll(async () => {
  await startCpuLog();
  await warmTestDatabase();
});
afterAll(() => endCpuLog(expect.getState().testPath ?? "?"));
