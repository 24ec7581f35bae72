import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/helpers/sequencer.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Two workers suit this 2-core machine. isolate: false keeps a worker's modules loaded from one
    // file to the next: the app's imports are paid once per worker instead of once per file, and
    // the worker's one migrated PGlite (test/helpers/test-app.ts) serves all its files.
    pool: "forks",
    maxWorkers: 2,
    isolate: false,
    // Compiles src/ once for the tests that start the service or CLI as child processes.
    globalSetup: ["test/helpers/child-build.ts"],
    setupFiles: ["test/helpers/setup.ts"],
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: "test" },
  },
});
