import { configDefaults, defineConfig } from "vitest/config"

/**
 * Tests that take minutes (installing the package from a clean clone) or whose assertions depend on
 * the machine's speed (rates against a live emulator, a 3,000-row Parquet run, a timing ratio):
 * `slow.test.ts`. The `unit` project must pass on a loaded 2-core machine.
 */
const slow = "test/**/*.slow.test.ts"

export default defineConfig({
  test: {
    // A temporary root per run, removed at its end (test/temp-root.ts).
    globalSetup: ["test/temp-root.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start their own emulators on port 0; two workers match the 2-core machines.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // `npm test` (and .ci/run) run both; `npx vitest run --project unit` leaves the slow ones out.
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, slow] }
      },
      // A loaded machine may take minutes over a run the unit timeout gives 30 s.
      { extends: true, test: { name: "slow", include: [slow], testTimeout: 180_000 } }
    ]
  }
})
