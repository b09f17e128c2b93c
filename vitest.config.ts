import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A temporary root per run, removed at its end (test/temp-root.ts).
    globalSetup: ["test/temp-root.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start their own emulators on port 0; two workers match the 2-core machines.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
