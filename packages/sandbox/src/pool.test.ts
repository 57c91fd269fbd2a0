import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSandbox,
  type RunResult,
  type Sandbox,
  SandboxBusyError,
  SandboxUnavailableError,
} from "./index.ts";
import { eventually, killOwnedBy, processesOwnedBy } from "./testing/processes.ts";

const UID_BASE = 1_630_000_000;
const UID_LAST = UID_BASE + 1024;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: UID_BASE, concurrency: 2, warmPerLanguage: 2 });
});
afterAll(async () => {
  await sandbox?.close();
  killOwnedBy(UID_BASE, UID_LAST);
});

const MARK_PYTHON = `
import os
def main(inputs):
    with open("/tmp/mark-%d" % inputs["i"], "w") as handle:
        handle.write("mine")
    return {"i": inputs["i"], "tmp": sorted(os.listdir("/tmp")), "uid": os.getuid()}
`;
const MARK_JAVASCRIPT = `
const fs = require("node:fs");
function main(inputs) {
  fs.writeFileSync("/tmp/mark-" + inputs.i, "mine");
  return { i: inputs.i, tmp: fs.readdirSync("/tmp").sort(), uid: process.getuid() };
}
`;

describe("the pool", () => {
  it("runs 20 at once through the bounded pool, each in its own /tmp as a non-root uid", async () => {
    const before = sandbox.stats();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sandbox.run({
          language: i % 2 === 0 ? "python" : "javascript",
          code: i % 2 === 0 ? MARK_PYTHON : MARK_JAVASCRIPT,
          input: { i },
        }),
      ),
    );
    results.forEach((result, i) => {
      expect(result.error, `run ${i}: ${result.stderr}`).toBeNull();
      expect(result.output).toMatchObject({ i, tmp: [`mark-${i}`] });
      expect(result.output?.uid).not.toBe(0);
    });
    const after = sandbox.stats();
    expect(after.runs - before.runs).toBe(20);
    expect(after.maxActive).toBeLessThanOrEqual(2);
    expect(after.warmStarts - before.warmStarts).toBeGreaterThan(0);
    expect(after.active).toBe(0);
  });

  it("uses each warm runner once: nothing of a run is left for the next one", async () => {
    const leave = await sandbox.run({
      language: "python",
      code: "import builtins\ndef main(inputs):\n    builtins.leaked = 'secret'\n    open('/tmp/left', 'w').write('x')\n    return {}\n",
      input: {},
    });
    expect(leave.error).toBeNull();
    const look = await sandbox.run({
      language: "python",
      code: "import builtins, os\ndef main(inputs):\n    return {'leaked': hasattr(builtins, 'leaked'), 'tmp': os.listdir('/tmp')}\n",
      input: {},
    });
    expect(look.output).toEqual({ leaked: false, tmp: [] });
    const leaveJs = await sandbox.run({
      language: "javascript",
      code: "function main() { globalThis.leaked = 'secret'; return {}; }",
      input: {},
    });
    expect(leaveJs.error).toBeNull();
    const lookJs = await sandbox.run({
      language: "javascript",
      code: "function main() { return { leaked: typeof globalThis.leaked }; }",
      input: {},
    });
    expect(lookJs.output).toEqual({ leaked: "undefined" });
  });

  it("applies a smaller memory limit to the run that asks for it (started cold)", async () => {
    const code =
      "def main(inputs):\n    data = bytearray(inputs['mb'] * 1024 * 1024)\n    return {'n': len(data)}\n";
    const before = sandbox.stats();
    const small = await sandbox.run({ language: "python", code, input: { mb: 100 }, memoryMb: 64 });
    expect(small.error?.kind).toBe("memory");
    expect(sandbox.stats().coldStarts - before.coldStarts).toBe(1);
    const enough = await sandbox.run({ language: "python", code, input: { mb: 100 } });
    expect(enough.error).toBeNull();
    expect(enough.output).toEqual({ n: 100 * 1024 * 1024 });
  });

  it("answers a caller that waited past the queue timeout with SandboxBusyError", async () => {
    const busy = await createSandbox({
      uidBase: UID_BASE + 2000,
      concurrency: 1,
      queueTimeoutMs: 200,
      warmPerLanguage: 0,
    });
    try {
      const long = busy.run({
        language: "python",
        code: "import time\ndef main(inputs):\n    time.sleep(3)\n    return {'done': True}\n",
        input: {},
      });
      await expect(
        busy.run({ language: "python", code: "def main(inputs):\n    return {}\n", input: {} }),
      ).rejects.toBeInstanceOf(SandboxBusyError);
      expect((await long).output).toEqual({ done: true });
    } finally {
      await busy.close();
    }
  });

  it("keeps a flooding workspace to its share: another workspace's run starts at once and succeeds", async () => {
    const finished: string[] = [];
    const LIGHT = "def main(inputs):\n    return {'ok': 1}\n";
    // The light workspace ran a moment ago (within the contention window), so the flood may not borrow its slot.
    expect(
      (await sandbox.run({ workspaceId: "wsp_light", language: "python", code: LIGHT, input: {} })).error,
    ).toBeNull();
    const SLEEP = "import time\ndef main(inputs):\n    time.sleep(3)\n    return {'i': inputs['i']}\n";
    const flood = Array.from({ length: 2 }, (_, i) =>
      sandbox
        .run({ workspaceId: "wsp_flood", language: "python", code: SLEEP, input: { i } })
        .then((result) => {
          finished.push(`flood${i}`);
          return result;
        }),
    );
    expect(await eventually(() => sandbox.stats().active === 1 && sandbox.stats().queued === 1)).toBe(true);
    const light = await sandbox.run({ workspaceId: "wsp_light", language: "python", code: LIGHT, input: {} });
    finished.push("light");
    expect(light.output).toEqual({ ok: 1 });
    // The pool has 2 slots and a workspace's share is 1: the flood holds one, the light run took the other.
    expect(finished).toEqual(["light"]);
    for (const result of await Promise.all(flood)) expect(result.error).toBeNull();
  });

  it("starts a newcomer's run at once while another workspace holds the whole pool with long runs", async () => {
    const shared = await createSandbox({
      uidBase: UID_BASE + 6000,
      concurrency: 2,
      perWorkspaceConcurrency: 1,
      contentionWindowMs: 50,
      warmPerLanguage: 1,
    });
    const stop = new AbortController();
    try {
      const finished: string[] = [];
      const LONG = "import time\ndef main(inputs):\n    time.sleep(30)\n    return {}\n";
      const hog = Array.from({ length: 3 }, (_, i) =>
        shared
          .run({
            workspaceId: "wsp_hog",
            language: "python",
            code: LONG,
            input: {},
            timeoutMs: 40_000,
            signal: stop.signal,
          })
          .then(
            () => finished.push(`hog${i}`),
            () => finished.push(`hog${i} stopped`),
          ),
      );
      // Alone past the window, the hog borrows the second slot: the pool is all its, a third run waits.
      expect(
        await eventually(() => shared.stats().borrowed === 1 && shared.stats().active === 2, 10_000),
      ).toBe(true);
      const light = await shared.run({
        workspaceId: "wsp_newcomer",
        language: "python",
        code: "def main(inputs):\n    return {'ok': 1}\n",
        input: {},
      });
      finished.push("newcomer");
      expect(light.output).toEqual({ ok: 1 });
      // The newcomer did not wait for a hog run to end: both are still running, the third still waits.
      expect(finished).toEqual(["newcomer"]);
      expect(shared.stats()).toMatchObject({ active: 2, borrowed: 1, queued: 1 });
      stop.abort(new Error("test over"));
      await Promise.all(hog);
    } finally {
      stop.abort(new Error("test over"));
      await shared.close();
    }
  });

  it("serves waiting workspaces in turn: with the pool full, a newcomer waits for one run, not the flood's queue", async () => {
    const shared = await createSandbox({
      uidBase: UID_BASE + 4200,
      concurrency: 2,
      perWorkspaceConcurrency: 2,
      warmPerLanguage: 1,
    });
    try {
      const finished: string[] = [];
      const SLEEP = "import time\ndef main(inputs):\n    time.sleep(1)\n    return {}\n";
      const flood = Array.from({ length: 6 }, (_, i) =>
        shared
          .run({ workspaceId: "wsp_flood", language: "python", code: SLEEP, input: {} })
          .then((result) => {
            finished.push(`flood${i}`);
            return result;
          }),
      );
      expect(await eventually(() => shared.stats().active === 2 && shared.stats().queued === 4)).toBe(true);
      const light = shared
        .run({
          workspaceId: "wsp_light",
          language: "python",
          code: "def main(inputs):\n    return {}\n",
          input: {},
        })
        .then((result) => {
          finished.push("light");
          return result;
        });
      expect((await light).error).toBeNull();
      await Promise.all(flood);
      // A FIFO would have run the light workspace after all six; here it took the first slot freed.
      expect(finished.indexOf("light")).toBeLessThan(finished.indexOf("flood3"));
      expect(finished.indexOf("light")).toBeGreaterThan(0);
    } finally {
      await shared.close();
    }
  });

  it("created with isWarmedOnCreate: false, starts no warm runner until warmUp is called", async () => {
    const deferred = await createSandbox({
      uidBase: UID_BASE + 5000,
      concurrency: 1,
      warmPerLanguage: 1,
      isWarmedOnCreate: false,
    });
    try {
      expect(deferred.stats().warm.python ?? 0).toBe(0);
      await deferred.warmUp(["python"]);
      expect(await eventually(() => deferred.stats().warm.python === 1)).toBe(true);
      expect(deferred.stats().warm.javascript ?? 0).toBe(0);
    } finally {
      await deferred.close();
    }
  });

  it("stops a run whose caller aborts, and rejects with the abort reason", async () => {
    const controller = new AbortController();
    const running = sandbox.run({
      language: "python",
      code: "import time\ndef main(inputs):\n    time.sleep(60)\n    return {}\n",
      input: {},
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    expect(await eventually(() => sandbox.stats().active === 1)).toBe(true);
    controller.abort(new Error("the workflow run was cancelled"));
    await expect(running).rejects.toThrow("the workflow run was cancelled");
    expect(sandbox.stats().active).toBe(0);
  });

  it("stops running code on close and refuses new runs", async () => {
    const closing = await createSandbox({ uidBase: UID_BASE + 3000, concurrency: 1, warmPerLanguage: 1 });
    const running: Promise<RunResult> = closing.run({
      language: "python",
      code: "import time\ndef main(inputs):\n    time.sleep(60)\n    return {}\n",
      input: {},
      timeoutMs: 60_000,
    });
    expect(await eventually(() => processesOwnedBy(UID_BASE + 3000, UID_BASE + 4100).length >= 2)).toBe(true);
    await closing.close();
    const result = await running;
    expect(result.output).toBeNull();
    expect(await eventually(() => processesOwnedBy(UID_BASE + 3000, UID_BASE + 4100).length === 0)).toBe(
      true,
    );
    await expect(
      closing.run({ language: "python", code: "def main(inputs):\n    return {}\n", input: {} }),
    ).rejects.toBeInstanceOf(SandboxUnavailableError);
  });
});
