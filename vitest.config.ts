import { defineConfig } from "vitest/config";

/**
 * Three projects: `unit` (unit, property and real-process tests; `npm run test:unit`, about a minute),
 * `faults` (full and read-only disks, SIGKILLs, crowds of writers; `npm run test:faults`, needs root to mount
 * a tmpfs) and `e2e` (real OpenClaw releases; `npm run test:e2e`). `npm test` runs all three.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**", "test/faults/**"] },
      },
      { extends: true, test: { name: "faults", include: ["test/faults/**/*.test.ts"] } },
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
    ],
  },
});
