import { defineConfig } from "vitest/config";

/**
 * Four projects: `unit` (unit, property and real-process tests; `npm run test:unit`, under a minute: the
 * files share their workers, so each must leave no global state behind), `fuzz` (the long property runs,
 * `*.fuzz.test.ts`), `faults` (full and read-only disks, SIGKILLs, crowds of writers; `npm run test:faults`,
 * needs root to mount a tmpfs) and `e2e` (real OpenClaw releases; `npm run test:e2e`). `npm test` runs all
 * four.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", "test/faults/**", "test/**/*.fuzz.test.ts"],
          isolate: false,
        },
      },
      { extends: true, test: { name: "fuzz", include: ["test/**/*.fuzz.test.ts"] } },
      { extends: true, test: { name: "faults", include: ["test/faults/**/*.test.ts"] } },
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
    ],
  },
});
