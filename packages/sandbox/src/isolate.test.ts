import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./index.ts";
import { fitsIsolate } from "./languages/javascript.ts";
import { killOwnedBy } from "./testing/processes.ts";

const UID_BASE = 1_690_000_000;
const UID_LAST = UID_BASE + 1024;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: UID_BASE, concurrency: 2, warmPerLanguage: 0 });
});
afterAll(async () => {
  await sandbox?.close();
  killOwnedBy(UID_BASE, UID_LAST);
});

const lines = (...source: string[]) => `${source.join("\n")}\n`;

/** Reports what it finds of earlier nodes, then leaves a global and a prototype patch behind. */
const TRACES = lines(
  "function main(inputs) {",
  "  const seen = { left: typeof globalThis.left, patched: typeof Object.prototype.stolen, keys: Object.keys(globalThis).sort() };",
  "  globalThis.left = inputs.secret;",
  "  Object.prototype.stolen = inputs.secret;",
  "  JSON.stringify = () => inputs.secret;",
  "  return seen;",
  "}",
);
const CLEAN = { left: "undefined", patched: "undefined", keys: ["$format", "require"] };
const PLUS_ONE = "function main(inputs) {\n  return { n: inputs.n + 1 };\n}\n";

describe("which JavaScript goes to an isolate", () => {
  it("pure JavaScript does; code that names a Node.js API or a timer keeps a process per run", () => {
    expect(fitsIsolate(PLUS_ONE)).toBe(true);
    expect(fitsIsolate("function main(i) { return { s: JSON.stringify(i), m: Math.max(1, 2) }; }")).toBe(
      true,
    );
    expect(fitsIsolate("const os = require('node:os');\nfunction main() { return {}; }")).toBe(false);
    expect(fitsIsolate("function main() { return { pid: process.pid }; }")).toBe(false);
    expect(
      fitsIsolate("async function main() { await new Promise((r) => setTimeout(r, 1)); return {}; }"),
    ).toBe(false);
    expect(fitsIsolate("function main() { return { b: Buffer.from('x').length }; }")).toBe(false);
    // A property of that name is not the global.
    expect(fitsIsolate("function main(i) { return { p: i.process, u: i.URL }; }")).toBe(true);
  });

  it("Node.js code still runs (on the process path), require and timers included", async () => {
    const result = await sandbox.run({
      workspaceId: "wsp_node",
      language: "javascript",
      code: lines(
        "const os = require('node:os');",
        "async function main(inputs) {",
        "  await new Promise((resolve) => setTimeout(resolve, 5));",
        "  return { platform: os.platform(), n: inputs.n };",
        "}",
      ),
      input: { n: 1 },
    });
    expect(result.error, result.stderr).toBeNull();
    expect(result.output).toEqual({ platform: "linux", n: 1 });
  });
});

describe("pure JavaScript: one resident runner per workspace, a new isolate per node", () => {
  it("a session's nodes share the runner, each in a fresh isolate: nothing a node left reaches the next", async () => {
    const before = sandbox.stats();
    const session = sandbox.session("wsp_traces");
    const first = await session.run({ language: "javascript", code: TRACES, input: { secret: "one" } });
    const second = await session.run({ language: "javascript", code: TRACES, input: { secret: "two" } });
    session.close();
    expect(first.error, first.stderr).toBeNull();
    expect(second.error, second.stderr).toBeNull();
    expect(first.output).toEqual(CLEAN);
    expect(second.output).toEqual(CLEAN);
    expect(sandbox.stats().reused - before.reused).toBe(1);
  });

  it("a workspace's next run reuses its runner, fresh; another workspace never gets it", async () => {
    const first = sandbox.session("wsp_a");
    expect(
      (await first.run({ language: "javascript", code: TRACES, input: { secret: "a1" } })).output,
    ).toEqual(CLEAN);
    first.close();
    const afterFirst = sandbox.stats();
    expect(afterFirst.parked).toBeGreaterThanOrEqual(1);

    // Another workspace: a runner of its own, although wsp_a's is idle.
    const other = sandbox.session("wsp_b");
    const foreign = await other.run({ language: "javascript", code: TRACES, input: { secret: "b1" } });
    other.close();
    expect(foreign.output).toEqual(CLEAN);
    const afterOther = sandbox.stats();
    expect(afterOther.coldStarts - afterFirst.coldStarts).toBe(1);
    expect(afterOther.reused).toBe(afterFirst.reused);

    // The same workspace's next run: the parked runner, and a clean isolate.
    const again = sandbox.session("wsp_a");
    const second = await again.run({ language: "javascript", code: TRACES, input: { secret: "a2" } });
    again.close();
    expect(second.output).toEqual(CLEAN);
    expect(sandbox.stats().reused - afterOther.reused).toBe(1);
  });

  it("overlapping runs of a workspace share its runner: a run still open does not keep it from the next", async () => {
    const open = sandbox.session("wsp_overlap");
    expect(
      (await open.run({ language: "javascript", code: TRACES, input: { secret: "o1" } })).output,
    ).toEqual(CLEAN);
    const before = sandbox.stats();
    // The first run has not ended (its End node, its record): the second run's node takes the same runner.
    const overlapping = sandbox.session("wsp_overlap");
    const second = await overlapping.run({ language: "javascript", code: TRACES, input: { secret: "o2" } });
    const third = await open.run({ language: "javascript", code: TRACES, input: { secret: "o3" } });
    overlapping.close();
    open.close();
    expect(second.output).toEqual(CLEAN);
    expect(third.output).toEqual(CLEAN);
    const after = sandbox.stats();
    expect(after.coldStarts - before.coldStarts).toBe(0);
    expect(after.reused - before.reused).toBe(2);
  });

  it("the code reaches nothing of Node.js: no process, require, module loader or host function", async () => {
    const result = await sandbox.run({
      workspaceId: "wsp_escape",
      language: "javascript",
      code: lines(
        "function main() {",
        "  const g = Function('return this')();",
        "  const name = 'pro' + 'cess';",
        "  const viaConstructor = (() => { try { return typeof this.constructor.constructor('return globalThis.' + name)(); } catch (e) { return 'threw'; } })();",
        "  let required;",
        "  try { g['req' + 'uire']('fs'); required = 'loaded'; } catch (e) { required = e.message; }",
        "  const viaLog = (() => { try { return typeof console.log.constructor('return globalThis.' + name)(); } catch (e) { return 'threw'; } })();",
        "  return { hostProcess: typeof g[name], viaConstructor, viaLog, required, fetched: typeof g['fe' + 'tch'] };",
        "}",
      ),
      input: {},
    });
    expect(result.error, result.stderr).toBeNull();
    expect(result.output).toEqual({
      hostProcess: "undefined",
      viaConstructor: "undefined",
      viaLog: "undefined",
      required: "require('fs') is not available here",
      fetched: "undefined",
    });
  });

  it("answers like the process path: output, errors with the user's line, async main, bad output", async () => {
    const session = sandbox.session("wsp_shape");
    const printed = await session.run({
      language: "javascript",
      code: "async function main(inputs) {\n  console.log('hi', inputs.n);\n  console.error('warn');\n  return { n: await inputs.n };\n}\n",
      input: { n: 3 },
    });
    expect(printed).toMatchObject({ output: { n: 3 }, stdout: "hi 3\n", stderr: "warn\n", error: null });
    const thrown = await session.run({
      language: "javascript",
      code: "function main() {\n  const x = 1;\n  throw new TypeError('bad ' + x);\n}\n",
      input: {},
    });
    expect(thrown.error).toEqual({ kind: "runtime", type: "TypeError", message: "bad 1", line: 3 });
    const syntax = await session.run({
      language: "javascript",
      code: "function main() {\n  return {;\n}\n",
      input: {},
    });
    expect(syntax.error?.kind).toBe("compile");
    expect(syntax.error?.line).toBe(2);
    const missing = await session.run({ language: "javascript", code: "const x = 1;\n", input: {} });
    expect(missing.error?.type).toBe("MissingMain");
    const array = await session.run({
      language: "javascript",
      code: "function main() { return [1]; }",
      input: {},
    });
    expect(array.error?.kind).toBe("invalid_output");
    const exported = await session.run({
      language: "javascript",
      code: "module.exports.main = (i) => ({ n: i.n * 2 });\n",
      input: { n: 4 },
    });
    expect(exported.output).toEqual({ n: 8 });
    session.close();
  });
});

describe("every limit holds per node in the workspace's runner; the next node of the run starts clean", () => {
  const next = async (session: ReturnType<Sandbox["session"]>) => {
    const result = await session.run({ language: "javascript", code: TRACES, input: { secret: "after" } });
    expect(result.error, result.stderr).toBeNull();
    expect(result.output).toEqual(CLEAN);
  };

  it("memory: a node past its heap fails alone with `memory`; the runner survives for the next", async () => {
    const session = sandbox.session("wsp_memory");
    await next(session);
    const hog = await session.run({
      language: "javascript",
      code: "function main() {\n  const keep = [];\n  for (;;) keep.push(new Array(1e5).fill(Math.random()));\n}\n",
      input: {},
    });
    expect(hog.error?.kind).toBe("memory");
    // Reported by the runner (an exit status of the node), not by the death of its process.
    expect(hog.exitCode).toBe(1);
    const buffers = await session.run({
      language: "javascript",
      code: "function main() {\n  const keep = [];\n  for (;;) keep.push(new ArrayBuffer(1 << 20));\n}\n",
      input: {},
    });
    expect(buffers.error?.kind).toBe("memory");
    expect(buffers.exitCode).toBe(1);
    await next(session);
    session.close();
  });

  it("wall time: a node that never returns is stopped with `timeout`; the next node gets a new runner", async () => {
    const session = sandbox.session("wsp_time");
    const spin = await session.run({
      language: "javascript",
      code: "function main() { for (;;); }",
      input: {},
      timeoutMs: 300,
    });
    expect(spin.timedOut).toBe(true);
    expect(spin.error?.kind).toBe("timeout");
    const pending = await session.run({
      language: "javascript",
      code: "function main() { return new Promise(() => {}); }",
      input: {},
      timeoutMs: 300,
    });
    expect(pending.error?.kind).toBe("timeout");
    await next(session);
    session.close();
  });

  it("output: a node that prints past 1 MiB is cut and stopped; the next node starts clean", async () => {
    const session = sandbox.session("wsp_output");
    const loud = await session.run({
      language: "javascript",
      code: "function main() {\n  const line = 'x'.repeat(1000);\n  for (;;) console.log(line);\n}\n",
      input: {},
    });
    expect(loud.truncated).toBe(true);
    expect(loud.error?.kind).toBe("output_limit");
    await next(session);
    session.close();
  });

  it("result: a result past 1 MiB is refused; the next node starts clean", async () => {
    const session = sandbox.session("wsp_result");
    const big = await session.run({
      language: "javascript",
      code: "function main() { return { big: 'x'.repeat(2 * 1024 * 1024) }; }",
      input: {},
    });
    expect(big.output).toBeNull();
    expect(big.error).not.toBeNull();
    await next(session);
    session.close();
  });
});

describe("cgroup v2 OOM attribution", () => {
  const reason = () => sandbox.runtimes().limits;
  it("an OOM kill in one workspace's sandbox is reported on that node only", async (context) => {
    const limits = reason();
    if (limits.mechanism !== "cgroup_v2") {
      // This host (a cgroup v1 or hybrid container) has no delegated cgroup v2: the rlimit fallback is active.
      context.skip(`cgroup v2 is not usable here: ${limits.detail}`);
      return;
    }
    const victim = sandbox.session("wsp_oom");
    const bystander = sandbox.session("wsp_bystander");
    const hog = victim.run({
      language: "python",
      code: "def main(inputs):\n    keep = []\n    while True:\n        keep.append(bytearray(16 * 1024 * 1024))\n",
      input: {},
      memoryMb: 64,
    });
    const calm = bystander.run({
      language: "python",
      code: "def main(inputs):\n    return {'ok': True}\n",
      input: {},
    });
    const [hogResult, calmResult] = await Promise.all([hog, calm]);
    expect(hogResult.error?.kind).toBe("memory");
    expect(calmResult).toMatchObject({ output: { ok: true }, error: null });
    const after = await victim.run({
      language: "python",
      code: "def main(inputs):\n    return {'ok': True}\n",
      input: {},
    });
    expect(after).toMatchObject({ output: { ok: true }, error: null });
    victim.close();
    bystander.close();
  });
});
