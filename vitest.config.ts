import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/helpers/sequencer.ts";

/**
 * Files that need no database, no server and no child process: the `unit` project runs them with
 * no global setup (no child build, no migrated PGlite), so `npx vitest run --project unit` answers
 * in a few seconds. A file belongs here only if it imports nothing that opens a database.
 */
const UNIT = [
  "test/lib/**/*.test.ts",
  "test/orders/workflow.test.ts",
  "test/appointments/workflow.test.ts",
  "test/webhooks/retry-policy.test.ts",
  "test/webhooks/delivery-decisions.test.ts",
  "test/webhooks/scheduler.test.ts",
  "test/ops/cli-grammar.test.ts",
  "test/ops/config.test.ts",
  "test/http/schema-compilers.test.ts",
  "test/sql/snapshots.test.ts",
  "test/sql/rule.test.ts",
  "test/unit/**/*.test.ts",
  "test/i18n/**/*.test.ts",
];

export default defineConfig({
  test: {
    // Two workers suit this 2-core machine. isolate: false keeps a worker's modules loaded from one
    // file to the next: the app's imports are paid once per worker instead of once per file, and
    // the worker's one migrated PGlite (test/helpers/test-app.ts) serves all its files.
    pool: "forks",
    maxWorkers: 2,
    // V8 compiles the workers' PGlite WebAssembly with its baseline compiler only, as for the
    // children (CHILD_NODE_FLAGS, test/helpers/child-build.ts): the optimizing tier's background
    // compiles cost more CPU than its faster code saves in a test run (measured here, nine
    // database-heavy files: 50.6 → 46.5 s of CPU).
    execArgv: ["--liftoff-only"],
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: "test" },
    // Transformed modules kept on disk (node_modules/.experimental-vitest-cache, keyed by content
    // and config) for the next run: a unit run's time was mostly transforming the same files again.
    experimental: { fsModuleCache: true },
    reporters: ["default", "./test/helpers/skipped-groups.ts"],
    projects: [
      { extends: true, test: { name: "unit", include: UNIT } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: UNIT,
          // Compiles src/ once for the tests that start the service or CLI as child processes.
          globalSetup: ["test/helpers/child-build.ts"],
          setupFiles: ["test/helpers/setup.ts"],
        },
      },
    ],
  },
});
