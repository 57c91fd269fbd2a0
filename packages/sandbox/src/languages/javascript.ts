import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, linkSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ProcessLimits } from "../limits.ts";
import { probeVersion } from "./probe.ts";
import type { InterpretedLanguage, LanguageContext, ToolchainProbe } from "./types.ts";

/** Where the pinned runtime appears inside the sandbox: a single file bound read-only, outside /sandbox (a mount point there would be created in the host directory bound at /sandbox). */
const SANDBOX_NODE = "/runtime/node";

/**
 * The Node.js the services run on: the project pins it as the npm package `node` (its binary is
 * `node_modules/node/bin/node`), so sandboxed JavaScript gets the same major as the services and
 * not whatever the host has under /usr. Outside an npm install, the running binary itself.
 *
 * @example pinnedNodeBinary() // "/app/node_modules/node/bin/node"
 */
export function pinnedNodeBinary(): string {
  try {
    const manifest = createRequire(import.meta.url).resolve("node/package.json");
    const binary = join(dirname(manifest), "bin", "node");
    if (existsSync(binary)) return binary;
  } catch {
    // Not installed as a package: fall through to the binary running this service.
  }
  return process.execPath;
}

/**
 * Hard-links (or copies, across filesystems) the runtime into the sandbox's cache directory under a
 * name derived from its size and mtime, so the sandbox uids can reach it whatever the permissions of
 * the checkout are, and an `npm install` that replaces the binary does not change it under a run.
 *
 * @example installNodeRuntime("/var/cache/app-sandbox", pinnedNodeBinary()) // "/var/cache/app-sandbox/node-1a2b…/node"
 */
export function installNodeRuntime(cacheDir: string, source: string, name = "node"): string {
  const stats = statSync(source);
  const key = createHash("sha256")
    .update(`${source}\0${stats.size}\0${stats.mtimeMs}`)
    .digest("hex")
    .slice(0, 16);
  const dir = join(cacheDir, `${name}-${key}`);
  const target = join(dir, name);
  if (existsSync(target)) return target;
  const staging = `${dir}.staging-${randomBytes(4).toString("hex")}`;
  mkdirSync(staging, { mode: 0o755 });
  try {
    try {
      linkSync(source, join(staging, name));
    } catch {
      copyFileSync(source, join(staging, name));
    }
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process installed the same runtime first.
    if (!existsSync(target)) throw error;
  }
  return target;
}

/** Where isolated-vm's native module appears inside the sandbox, bound read-only. */
const SANDBOX_ISOLATE_BINDING = "/runtime/isolated-vm.node";

/**
 * The prebuilt native module of isolated-vm for this platform and Node.js ABI (the npm package ships
 * them; node-gyp-build picks the one that fits), or undefined when there is none: JavaScript then
 * runs on the one-process-per-run path only.
 *
 * @example isolatedVmBinding() // "/app/node_modules/isolated-vm/prebuilds/linux-x64/isolated-vm.abi137.glibc.node"
 */
export function isolatedVmBinding(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const packageDir = dirname(require.resolve("isolated-vm/package.json"));
    const nodeGypBuild = require("node-gyp-build") as { path(dir: string): string };
    return nodeGypBuild.path(packageDir);
  } catch {
    return undefined;
  }
}

/**
 * Names the isolate path cannot offer: Node.js modules and globals, timers and the Web APIs Node.js
 * adds to V8 (the isolate has only the language itself and a console). Code that mentions any of
 * them (other than as a property, `x.process`), even in a comment, a string or as an object key, runs
 * on the one-process-per-run path, where all of Node.js is there; a false match only costs speed.
 */
const NODE_ONLY_NAMES =
  /(?<![.$\w])(?:require|process|Buffer|global|module\s*\.\s*require|import|__dirname|__filename|setTimeout|setInterval|setImmediate|clearTimeout|clearInterval|clearImmediate|queueMicrotask|URL|URLSearchParams|TextEncoder|TextDecoder|AbortController|AbortSignal|Event|EventTarget|atob|btoa|structuredClone|performance|crypto|Blob|fetch|WebAssembly|SharedArrayBuffer|Atomics)\b/;

/**
 * Whether the code can run in a fresh isolate (pure JavaScript: the language, JSON, a console).
 *
 * @example fitsIsolate("function main(i) { return { n: i.n + 1 }; }") // true
 * @example fitsIsolate("const fs = require('node:fs'); function main() { return {}; }") // false
 */
export function fitsIsolate(code: string): boolean {
  return !NODE_ONLY_NAMES.test(code);
}

/**
 * The resident runner of one workspace's pure-JavaScript nodes: Node.js with runners/isolate-runner.cjs,
 * which runs each node in a new isolate of `memoryMb` × 0.75 (the rest is the runner's own).
 *
 * @example isolateCommand(limits) // ["/runtime/node", "/sandbox/isolate-runner.cjs", "/runtime/isolated-vm.node", "192"]
 */
export function isolateCommand(limits: ProcessLimits): string[] {
  return [
    SANDBOX_NODE,
    // The runner's own heap holds one request and one result at a time.
    "--max-old-space-size=64",
    "/sandbox/isolate-runner.cjs",
    SANDBOX_ISOLATE_BINDING,
    String(Math.max(8, Math.floor((limits.memoryBytes / 1024 / 1024) * 0.75))),
  ];
}

/** The binds of the isolate runner: the pinned runtime and isolated-vm's native module. */
export function isolateBinds(context: LanguageContext): [string, string][] {
  if (!context.nodeRuntime || !context.isolateBinding) throw new Error("isolates are not available here");
  return [
    [context.nodeRuntime, SANDBOX_NODE],
    [context.isolateBinding, SANDBOX_ISOLATE_BINDING],
  ];
}

/** The pinned runtime answers `--version` on this host; its major is the services' major. */
function probeNode(binary: string): Promise<ToolchainProbe> {
  return probeVersion(
    binary,
    ["--version"],
    /v(\S+)/,
    "install the project's dependencies (`npm install`), which pin Node.js as the `node` package",
  );
}

/**
 * JavaScript on Node.js: `function main(inputs)` (async allowed, CommonJS `require`), run by
 * runners/runner.cjs on the pinned runtime, bound read-only at /runtime/node.
 *
 * @example javascript.command(limits) // ["/runtime/node", "--max-old-space-size=192", "/sandbox/runner.cjs", "--session"]
 */
export const javascript: InterpretedLanguage = {
  kind: "interpreted",
  language: "javascript",
  probe: () => probeNode(pinnedNodeBinary()),
  runtimeBinds: (context: LanguageContext) =>
    context.nodeRuntime ? [[context.nodeRuntime, SANDBOX_NODE]] : [],
  command: (limits) => [
    SANDBOX_NODE,
    // V8 fails with a clear "heap out of memory" before RLIMIT_DATA makes an allocation fail somewhere random.
    `--max-old-space-size=${Math.max(16, Math.floor((limits.memoryBytes / 1024 / 1024) * 0.75))}`,
    "/sandbox/runner.cjs",
    // Requests in turn, each in a fresh V8 context, for as long as the host keeps the process (one run).
    "--session",
  ],
  env: () => ({ NODE_ENV: "production", UV_THREADPOOL_SIZE: "2" }),
};
