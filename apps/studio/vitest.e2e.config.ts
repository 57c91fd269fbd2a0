import { defineConfig } from "vitest/config";

// Browser tests: the real builder on a real port serving the built studio, driven by Debian's Chromium.
export default defineConfig({
  test: {
    include: ["e2e/**/*.test.ts"],
    globalSetup: process.env.E2E_SKIP_BUILD ? [] : ["e2e/build-once.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: "forks",
  },
});
