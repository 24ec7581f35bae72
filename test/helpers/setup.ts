// Runs before every test file (vitest.config.ts setupFiles). Opening the worker's shared PGlite
// here, under the hook timeout, keeps its one-off ~4 s start out of any single test's 30 s budget.
import { beforeAll } from "vitest";
import { warmTestDatabase } from "./test-app.ts";

beforeAll(() => warmTestDatabase());
