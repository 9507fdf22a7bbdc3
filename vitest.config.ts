import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` (unit, property and real-process tests; `npm run test:unit`, about a minute) and
 * `e2e` (real OpenClaw releases; `npm run test:e2e`). `npm test` runs both.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**"] } },
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
    ],
  },
});
