import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Language, type Sandbox } from "./index.ts";
import { eventually, killOwnedBy, processesOwnedBy, userProcessesOwnedBy } from "./testing/processes.ts";

const UID_BASE = 1_680_000_000;
const UID_LAST = UID_BASE + 1024;

let sandbox: Sandbox;
let server: Server;
let port: number;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: UID_BASE, concurrency: 2, warmPerLanguage: 1 });
  server = createServer((socket) => socket.end("host\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await sandbox?.close();
  server?.close();
  killOwnedBy(UID_BASE, UID_LAST);
});

const lines = (...source: string[]) => `${source.join("\n")}\n`;

/** Leaves traces a later node must not see (a global, a file, a timer or a daemon), and reports what it saw. */
const TRACES: Record<"python" | "javascript", string> = {
  python: lines(
    "import builtins, os, time",
    "def main(inputs):",
    "    seen = {'global': hasattr(builtins, 'left'), 'tmp': sorted(os.listdir('/tmp')),",
    "            'processes': len([p for p in os.listdir('/proc') if p.isdigit()]), 'pid': os.getpid(), 'uid': os.getuid()}",
    "    builtins.left = inputs['secret']",
    "    open('/tmp/left', 'w').write(inputs['secret'])",
    "    if os.fork() == 0:",
    "        os.setsid()",
    "        time.sleep(3600)",
    "    return seen",
  ),
  javascript: lines(
    "const fs = require('node:fs');",
    "function main(inputs) {",
    "  const seen = { global: typeof globalThis.left, tmp: fs.readdirSync('/tmp').sort(), ticks: globalThis.ticks ?? 0, pid: process.pid, uid: process.getuid() };",
    "  globalThis.left = inputs.secret;",
    "  fs.writeFileSync('/tmp/left-' + inputs.secret, inputs.secret);",
    "  setInterval(() => { globalThis.ticks = (globalThis.ticks ?? 0) + 1; }, 1);",
    "  return seen;",
    "}",
  ),
};

describe("a session (the Code nodes of one workflow run)", () => {
  it("python: runs each node in a fresh process on the run's one sandbox; nothing a node left reaches the next", async () => {
    const before = sandbox.stats();
    const session = sandbox.session("wsp_python");
    const first = await session.run({ language: "python", code: TRACES.python, input: { secret: "one" } });
    const second = await session.run({ language: "python", code: TRACES.python, input: { secret: "two" } });
    session.close();
    expect(first.error, first.stderr).toBeNull();
    expect(second.error, second.stderr).toBeNull();
    // bwrap's init, the zygote and this node: the daemon the first node forked is gone.
    expect(second.output).toMatchObject({ global: false, tmp: [], processes: 3 });
    expect(second.output?.pid).not.toBe(first.output?.pid);
    expect(sandbox.stats().reused - before.reused).toBe(1);
  });

  it("javascript: runs each node in a fresh V8 context of the run's one process; globals and timers do not carry over", async () => {
    const before = sandbox.stats();
    const session = sandbox.session("wsp_javascript");
    const first = await session.run({
      language: "javascript",
      code: TRACES.javascript,
      input: { secret: "one" },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await session.run({
      language: "javascript",
      code: TRACES.javascript,
      input: { secret: "two" },
    });
    session.close();
    expect(first.error, first.stderr).toBeNull();
    expect(second.error, second.stderr).toBeNull();
    expect(second.output).toMatchObject({ global: "undefined", ticks: 0 });
    // One process for the run: files are the run's own (another run never sees them, see below).
    expect(second.output?.pid).toBe(first.output?.pid);
    expect(second.output?.tmp).toEqual(["left-one"]);
    expect(sandbox.stats().reused - before.reused).toBe(1);
  });

  it("a later run of the same workspace reuses the idle Python zygote and sees nothing of the earlier run", async () => {
    const first = sandbox.session("wsp_reuse");
    const one = await first.run({ language: "python", code: TRACES.python, input: { secret: "run-1" } });
    first.close();
    const before = sandbox.stats();
    const second = sandbox.session("wsp_reuse");
    const two = await second.run({ language: "python", code: TRACES.python, input: { secret: "run-2" } });
    second.close();
    expect(sandbox.stats().reused - before.reused).toBe(1);
    expect(two.output).toMatchObject({ global: false, tmp: [], processes: 3, uid: one.output?.uid });
  });

  it("never lets two workspaces share a sandbox: another workspace's run gets its own process and uid", async () => {
    const mine = sandbox.session("wsp_mine");
    const a = await mine.run({ language: "python", code: TRACES.python, input: { secret: "a" } });
    mine.close();
    const before = sandbox.stats();
    const theirs = sandbox.session("wsp_theirs");
    const b = await theirs.run({ language: "python", code: TRACES.python, input: { secret: "b" } });
    const js = await theirs.run({ language: "javascript", code: TRACES.javascript, input: { secret: "b" } });
    theirs.close();
    expect(sandbox.stats().reused - before.reused).toBe(0);
    expect(b.output).toMatchObject({ global: false, tmp: [] });
    expect(b.output?.uid).not.toBe(a.output?.uid);
    expect(js.output).toMatchObject({ global: "undefined", tmp: [] });
    expect(await eventually(() => userProcessesOwnedBy(UID_BASE, UID_LAST).length === 0)).toBe(true);
  });
});

/** Code that breaks one limit, per language; each is followed in the same session by a node that must run clean. */
const BREAKERS: Record<string, Record<"python" | "javascript", string>> = {
  memory: {
    python: lines(
      "def main(inputs):",
      "    hoard = []",
      "    while True:",
      "        hoard.append(bytearray(16 * 1024 * 1024))",
    ),
    javascript: lines(
      "function main() {",
      "  const hoard = [];",
      "  for (;;) hoard.push(new Array(1e6).fill(1.5));",
      "}",
    ),
  },
  timeout: {
    python: lines("def main(inputs):", "    while True:", "        pass"),
    javascript: lines("function main() {", "  for (;;) {}", "}"),
  },
  output_limit: {
    python: lines("def main(inputs):", "    while True:", "        print('x' * 4096)"),
    javascript: lines("function main() {", "  for (;;) console.log('x'.repeat(4096));", "}"),
  },
};

const CLEAN: Record<"python" | "javascript", string> = {
  python: lines(
    "import os",
    "def main(inputs):",
    "    return {'n': inputs['n'] + 1, 'tmp': os.listdir('/tmp'), 'processes': len([p for p in os.listdir('/proc') if p.isdigit()])}",
  ),
  javascript: lines(
    "function main(inputs) {",
    "  return { n: inputs.n + 1, tmp: require('node:fs').readdirSync('/tmp'), processes: 0 };",
    "}",
  ),
};

describe.each(["python", "javascript"] as const)("%s limits per node in a session", (language) => {
  it.each(Object.keys(BREAKERS))(
    "a node that hits the %s limit fails alone; the next node starts clean",
    async (kind) => {
      const session = sandbox.session(`wsp_limits_${language}`);
      try {
        const broken = await session.run({
          language,
          code: BREAKERS[kind]?.[language] ?? "",
          input: {},
          timeoutMs: kind === "timeout" ? 500 : 10_000,
        });
        expect(broken.output).toBeNull();
        expect(broken.error?.kind, broken.stderr.slice(0, 500)).toBe(kind);
        const next = await session.run({ language, code: CLEAN[language], input: { n: 1 } });
        expect(next.error, next.stderr).toBeNull();
        expect(next.output).toEqual({ n: 2, tmp: [], processes: language === "python" ? 3 : 0 });
      } finally {
        session.close();
      }
    },
  );

  it("a node cannot reach the network, and neither can the next one", async () => {
    const code: Record<typeof language, string> = {
      python: lines(
        "import socket",
        "def main(inputs):",
        "    try:",
        "        socket.create_connection(('127.0.0.1', inputs['port']), timeout=1).recv(10)",
        "        return {'reached': True}",
        "    except OSError as error:",
        "        return {'reached': False}",
      ),
      javascript: lines(
        "const net = require('node:net');",
        "function main(inputs) {",
        "  return new Promise((resolve) => {",
        "    const socket = net.connect(inputs.port, '127.0.0.1', () => resolve({ reached: true }));",
        "    socket.on('error', () => resolve({ reached: false }));",
        "  });",
        "}",
      ),
    };
    const session = sandbox.session(`wsp_network_${language}`);
    try {
      for (let node = 0; node < 2; node++) {
        const result = await session.run({ language, code: code[language], input: { port } });
        expect(result.output).toEqual({ reached: false });
      }
    } finally {
      session.close();
    }
  });
});

describe("output and result per node", () => {
  it("javascript: one write past the output limit, or a result past the result limit, stops the node alone", async () => {
    const session = sandbox.session("wsp_big");
    try {
      const shout = await session.run({
        language: "javascript",
        code: lines(
          "function main() {",
          "  process.stdout.write('y'.repeat(3 * 1024 * 1024));",
          "  return {};",
          "}",
        ),
        input: {},
      });
      expect(shout.error?.kind).toBe("output_limit");
      expect(shout.truncated).toBe(true);
      expect(shout.stdout.length).toBeLessThanOrEqual(1024 * 1024);
      const huge = await session.run({
        language: "javascript",
        code: lines("function main() {", "  return { text: 'z'.repeat(2 * 1024 * 1024) };", "}"),
        input: {},
      });
      expect(huge.error).toMatchObject({
        kind: "invalid_output",
        message: expect.stringContaining("result limit"),
      });
      const next = await session.run({ language: "javascript", code: CLEAN.javascript, input: { n: 1 } });
      expect(next.output).toEqual({ n: 2, tmp: [], processes: 0 });
    } finally {
      session.close();
    }
  });
});

describe("CPU time per node", () => {
  it("javascript: a process that spent its headroom on earlier nodes is replaced, so the next node gets its full CPU time", async () => {
    const session = sandbox.session("wsp_cpu");
    try {
      // 3 × 0.8 s of CPU, each well inside its own limits: together past the 2 s a process may spend.
      for (let node = 0; node < 3; node++) {
        const burn = await session.run({
          language: "javascript",
          code: lines(
            "function main() {",
            "  const spent = () => { const used = process.cpuUsage(); return used.user + used.system; };",
            "  const until = spent() + 0.8e6;",
            "  while (spent() < until) {}",
            "  return { burnt: true };",
            "}",
          ),
          input: {},
          timeoutMs: 10_000,
        });
        expect(burn.output, burn.error?.message).toEqual({ burnt: true });
      }
      const before = sandbox.stats();
      const next = await session.run({
        language: "javascript",
        code: lines(
          "function main() {",
          "  const used = process.cpuUsage();",
          "  return { cpu: (used.user + used.system) / 1e6 };",
          "}",
        ),
        input: {},
      });
      expect(sandbox.stats().reused - before.reused).toBe(0);
      expect(next.output?.cpu).toBeLessThan(1);
    } finally {
      session.close();
    }
  });
});

describe("processes per node", () => {
  it("python: a fork bomb stops at the process limit, and the next node finds none of its processes", async () => {
    const session = sandbox.session("wsp_forks");
    try {
      const bomb = await session.run({
        language: "python",
        code: lines(
          "import os, time",
          "def main(inputs):",
          "    forked = 0",
          "    for _ in range(200):",
          "        try:",
          "            pid = os.fork()",
          "        except OSError:",
          "            break",
          "        if pid == 0:",
          "            time.sleep(60)",
          "            os._exit(0)",
          "        forked += 1",
          "    return {'forked': forked}",
        ),
        input: {},
      });
      expect(bomb.output?.forked).toBeGreaterThan(0);
      expect(bomb.output?.forked).toBeLessThan(32);
      const next = await session.run({ language: "python", code: CLEAN.python, input: { n: 1 } });
      expect(next.output).toEqual({ n: 2, tmp: [], processes: 3 });
    } finally {
      session.close();
    }
  });
});

it("replaces a session's idle sandbox that died between nodes, and keeps the new one for the next node", async () => {
  const own = await createSandbox({ uidBase: UID_BASE + 10_000, concurrency: 2, warmPerLanguage: 0 });
  try {
    const session = own.session("wsp_died");
    // Node.js code: the run's own process, held by the session between its nodes.
    const code = "function main(inputs) {\n  return { n: inputs.n + 1, node: typeof process };\n}\n";
    expect((await session.run({ language: "javascript", code, input: { n: 1 } })).output).toEqual({
      n: 2,
      node: "object",
    });
    expect(own.stats().held).toBe(1);
    killOwnedBy(UID_BASE + 10_000, UID_BASE + 11_100);
    expect(await eventually(() => processesOwnedBy(UID_BASE + 10_000, UID_BASE + 11_100).length === 0)).toBe(
      true,
    );
    // The session lets go of the dead sandbox as soon as its exit is seen.
    expect(await eventually(() => own.stats().held === 0)).toBe(true);
    expect((await session.run({ language: "javascript", code, input: { n: 2 } })).output).toMatchObject({
      n: 3,
    });
    const before = own.stats();
    expect((await session.run({ language: "javascript", code, input: { n: 3 } })).output).toMatchObject({
      n: 4,
    });
    expect(own.stats().reused - before.reused).toBe(1);
    session.close();
    expect(own.stats().held).toBe(0);
  } finally {
    await own.close();
  }
});

it("gives a workspace alone two nodes at once on two Python zygotes of its own, and keeps both for its next runs", async () => {
  // A sandbox of its own: the shared one saw other workspaces within the contention window.
  const own = await createSandbox({ uidBase: UID_BASE + 12_000, concurrency: 2, warmPerLanguage: 0 });
  const SLOW = lines(
    "import os, time",
    "def main(inputs):",
    "    time.sleep(0.3)",
    "    return {'uid': os.getuid()}",
  );
  const pair = () =>
    Promise.all(
      [0, 1].map(async () => {
        const session = own.session("wsp_alone");
        try {
          return (await session.run({ language: "python", code: SLOW, input: {} })).output?.uid;
        } finally {
          session.close();
        }
      }),
    );
  try {
    const first = await pair();
    // Both ran at once (its share is 1 of 2 slots; it borrowed the other), each in a sandbox of its own.
    expect(own.stats().maxActive).toBe(2);
    expect(new Set(first).size).toBe(2);
    const before = own.stats();
    const second = await pair();
    expect(own.stats().reused - before.reused).toBe(2);
    expect(new Set(second)).toEqual(new Set(first));
  } finally {
    await own.close();
  }
});

it("does not keep a node's sandbox for a session closed while the node ran", async () => {
  const session = sandbox.session("wsp_closing");
  const running = session.run({
    language: "javascript",
    code: "async function main() {\n  await new Promise((resolve) => setTimeout(resolve, 300));\n  return { done: true };\n}\n",
    input: {},
  });
  await eventually(() => sandbox.stats().active === 1);
  session.close();
  expect((await running).output).toEqual({ done: true });
  expect(sandbox.stats().held).toBe(0);
});

it("refuses runs on a closed session", async () => {
  const session = sandbox.session("wsp_closed");
  session.close();
  await expect(
    session.run({ language: "python" as Language, code: CLEAN.python, input: { n: 1 } }),
  ).rejects.toThrow("closed");
});
