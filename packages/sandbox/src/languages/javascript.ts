import { probeVersion } from "./probe.ts";
import type { InterpretedLanguage } from "./types.ts";

/** The node under /usr (the sandbox sees nothing else of the host), not necessarily the one running us. */
const NODE = "/usr/bin/node";

/**
 * JavaScript on Node.js: `function main(inputs)` (async allowed, CommonJS `require`), run by runners/runner.cjs.
 *
 * @example javascript.command(limits) // ["/usr/bin/node", "--max-old-space-size=192", ...]
 */
export const javascript: InterpretedLanguage = {
  kind: "interpreted",
  language: "javascript",
  probe: () =>
    probeVersion(NODE, ["--version"], /v(\S+)/, "install Node.js under /usr (e.g. `apt-get install nodejs`)"),
  command: (limits) => [
    NODE,
    // V8 fails with a clear "heap out of memory" before RLIMIT_DATA makes an allocation fail somewhere random.
    `--max-old-space-size=${Math.max(16, Math.floor((limits.memoryBytes / 1024 / 1024) * 0.75))}`,
    "/sandbox/runner.cjs",
  ],
  env: () => ({ NODE_ENV: "production", UV_THREADPOOL_SIZE: "2" }),
};
