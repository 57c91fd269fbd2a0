// `npm run bench -- sandbox [--part roundtrips|tenants|workflows] [--seconds 10]`: hello-world round
// trips per language through the sandbox, next to spawning the same interpreter or binary bare (no
// bwrap, no setpriv, no rlimits) in the same run; a light workspace's runs while another floods the
// sandbox, next to the same runs alone (by default, without borrowing, with the share at the whole
// pool), and a newcomer's first run while another workspace holds the pool with 60 s runs, next to
// the same first run on an idle sandbox; and Code-node workflows through the builder's API, next to the same code run in-process by
// the bare runtime, then one workspace's runs/s with and without borrowing idle slots.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";
import { createSandbox, type Language, type Sandbox } from "@app/sandbox";
import { freePort } from "@app/testing";
import { benchUser, option, startService, temporaryDataDir } from "./lib.ts";

const ITERATIONS = 30;
const COMPILE_ITERATIONS = 5;
const THROUGHPUT_RUNS = 40;
const CONCURRENCY = 2;
/** Lets the warm pool refill between measured runs, as it does between requests of a real service. */
const WARM_GAP_MS = 150;

const runners = fileURLToPath(new URL("../packages/sandbox/src/runners/", import.meta.url));

const HELLO: Record<Language, string> = {
  python: "def main(inputs):\n    return {'greeting': 'hello ' + inputs['name']}\n",
  javascript: "function main(inputs) {\n  return { greeting: 'hello ' + inputs.name };\n}\n",
  go: 'package main\n\nfunc Main(inputs map[string]any) (map[string]any, error) {\n\treturn map[string]any{"greeting": "hello " + inputs["name"].(string)}, nil\n}\n',
  rust: 'use serde_json::{json, Value};\n\nfn main_fn(inputs: Value) -> Result<Value, String> {\n    Ok(json!({ "greeting": format!("hello {}", inputs["name"].as_str().unwrap_or("")) }))\n}\n',
};
const INPUT = { name: "Ada" };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : "–");
const pair = (samples: number[]) => `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`;

/** The same protocol as the sandbox (JSON on stdin, result on fd 3), without any isolation. */
function bareRoundTrip(command: string[], stdin: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const [file, ...args] = command;
    if (!file) return reject(new Error("no command"));
    const child = spawn(file, args, {
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      env: { PATH: "/usr/bin:/bin" },
    });
    let result = "";
    child.stdio[3]?.on("data", (chunk: Buffer) => {
      result += chunk.toString();
    });
    child.stdout?.resume();
    child.stderr?.resume();
    child.on("error", reject);
    child.on("close", () => {
      if (!result.includes("hello Ada")) return reject(new Error(`bare run failed: ${result}`));
      resolve(performance.now() - started);
    });
    child.stdin?.end(stdin);
  });
}

/** `workspaceId` "fresh": a workspace of its own, so no idle Python zygote of an earlier run serves it. */
async function sandboxRoundTrip(
  sandbox: Sandbox,
  language: Language,
  code: string,
  workspaceId = "wsp_bench",
): Promise<number> {
  const started = performance.now();
  const workspace = workspaceId === "fresh" ? `wsp_${randomBytes(6).toString("hex")}` : workspaceId;
  const result = await sandbox.run({ workspaceId: workspace, language, code, input: INPUT });
  const elapsed = performance.now() - started;
  if (result.error || result.output?.greeting !== "hello Ada") {
    throw new Error(`${language} run failed: ${JSON.stringify(result.error)} ${result.stderr}`);
  }
  return elapsed;
}

/**
 * Runs the variants in turn, `times` rounds, so a change in the machine's load (other processes)
 * hits the baseline and the sandbox alike.
 */
async function interleaved(
  times: number,
  variants: Record<string, { once: () => Promise<number>; gapMs?: number }>,
): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = {};
  for (let i = 0; i < times; i++) {
    for (const [name, variant] of Object.entries(variants)) {
      if (variant.gapMs) await sleep(variant.gapMs);
      samples[name] ??= [];
      samples[name].push(await variant.once());
    }
  }
  return samples;
}

async function measure(times: number, once: () => Promise<number>): Promise<number[]> {
  return (await interleaved(times, { only: { once } })).only ?? [];
}

/** Runs per second with `concurrency` callers issuing `total` runs back to back. */
async function throughput(total: number, concurrency: number, once: () => Promise<number>): Promise<number> {
  let remaining = total;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (remaining > 0) {
        remaining--;
        await once();
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

interface Row {
  language: Language;
  bare: number[];
  /** A fresh bwrap per run (no warm runner; Go and Rust with the cached binary): bwrap's own cost shows here. */
  isolated: number[];
  /** A warm runner (Python: the workspace's idle zygote forks; JavaScript: a pre-started Node.js; Go, Rust: a pre-started sandbox the cached binary is linked into). */
  warm: number[];
  /** Go and Rust: compile and run of a source never seen before. */
  compile: number[];
  sandboxRate: number;
  bareRate: number;
}

async function benchInterpreted(
  language: "python" | "javascript",
  warm: Sandbox,
  coldSandbox: Sandbox,
): Promise<Row> {
  const command =
    language === "python"
      ? ["/usr/bin/python3", "-I", "-B", `${runners}runner.py`]
      : [process.execPath, "--max-old-space-size=192", `${runners}runner.cjs`];
  const request = JSON.stringify({ code: HELLO[language], input: INPUT });
  // The JavaScript runner is a session: a length line, then the request (see runners/runner.cjs).
  const stdin = language === "python" ? request : `${Buffer.byteLength(request)}\n${request}`;
  const bareOnce = () => bareRoundTrip(command, stdin);
  await bareOnce();
  const samples = await interleaved(ITERATIONS, {
    bare: { once: bareOnce },
    cold: { once: () => sandboxRoundTrip(coldSandbox, language, HELLO[language], "fresh") },
    warm: { once: () => sandboxRoundTrip(warm, language, HELLO[language]), gapMs: WARM_GAP_MS },
  });
  const sandboxRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, () =>
    sandboxRoundTrip(warm, language, HELLO[language]),
  );
  const bareRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, bareOnce);
  return {
    language,
    bare: samples.bare ?? [],
    isolated: samples.cold ?? [],
    warm: samples.warm ?? [],
    compile: [],
    sandboxRate,
    bareRate,
  };
}

async function benchCompiled(language: "go" | "rust", warm: Sandbox, coldSandbox: Sandbox): Promise<Row> {
  // Fresh source each time (a comment with a nonce), so every one really compiles.
  const compile = await measure(COMPILE_ITERATIONS, () =>
    sandboxRoundTrip(warm, language, `// ${randomBytes(8).toString("hex")}\n${HELLO[language]}`),
  );
  const binary = await warm.compiledBinary(language, HELLO[language]);
  const bareOnce = () => bareRoundTrip([binary], JSON.stringify(INPUT));
  await bareOnce();
  // Both sandboxes share the binary cache, so the one without warm runners finds it too.
  await sandboxRoundTrip(coldSandbox, language, HELLO[language]);
  const samples = await interleaved(ITERATIONS, {
    bare: { once: bareOnce },
    isolated: { once: () => sandboxRoundTrip(coldSandbox, language, HELLO[language], "fresh") },
    warm: { once: () => sandboxRoundTrip(warm, language, HELLO[language]), gapMs: WARM_GAP_MS },
  });
  const sandboxRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, () =>
    sandboxRoundTrip(warm, language, HELLO[language]),
  );
  const bareRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, bareOnce);
  return {
    language,
    bare: samples.bare ?? [],
    isolated: samples.isolated ?? [],
    warm: samples.warm ?? [],
    compile,
    sandboxRate,
    bareRate,
  };
}

function verdict(row: Row): string {
  const warm50 = percentile(row.warm, 50);
  const overhead = percentile(row.isolated, 50) - percentile(row.bare, 50);
  const checks: string[] = [];
  if (row.language === "python" || row.language === "javascript") {
    const ratio = warm50 / percentile(row.bare, 50);
    checks.push(`warm ${ratio.toFixed(2)}× bare ${ratio <= 2 ? "✓" : "✗"} (≤ 2×)`);
  } else {
    const fresh50 = percentile(row.isolated, 50);
    checks.push(
      `cached ${fmt(fresh50)} / ${fmt(warm50)} ms ${Math.max(fresh50, warm50) <= 50 ? "✓" : "✗"} (≤ 50 ms)`,
    );
  }
  checks.push(`overhead ${fmt(overhead)} ms ${overhead <= 15 ? "✓" : "✗"} (≤ 15 ms)`);
  return checks.join("; ");
}

async function roundTrips(): Promise<void> {
  const warm = await createSandbox({ concurrency: CONCURRENCY, warmPerLanguage: CONCURRENCY });
  const cold = await createSandbox({ concurrency: CONCURRENCY, warmPerLanguage: 0, uidBase: 1_700_000_000 });
  try {
    const report = warm.runtimes();
    if (!report.isAvailable) throw new Error(`the sandbox is unavailable here: ${report.reason}`);
    await warm.warmUp();
    const rows: Row[] = [];
    for (const language of ["python", "javascript"] as const)
      rows.push(await benchInterpreted(language, warm, cold));
    for (const language of ["go", "rust"] as const) rows.push(await benchCompiled(language, warm, cold));

    const versions = Object.fromEntries(report.languages.map((entry) => [entry.language, entry.version]));
    const load = loadavg()
      .map((value) => value.toFixed(1))
      .join(" ");
    console.log(
      `\n## Sandbox round trips (ms, p50 / p95) — ${availableParallelism()} cores (load average ${load}), bubblewrap ${report.isolation.bubblewrap}, limits: ${report.limits.mechanism}\n`,
    );
    console.log(
      "| language | bare spawn (baseline) | sandbox, fresh bwrap per run | sandbox, warm runner | first compile + run | runs/s @2 sandbox (warm) | runs/s @2 bare | targets |",
    );
    console.log("|---|---|---|---|---|---|---|---|");
    for (const row of rows) {
      console.log(
        `| ${row.language} ${versions[row.language] ?? ""} | ${pair(row.bare)} | ${pair(row.isolated)} | ${pair(row.warm)} | ${row.compile.length > 0 ? pair(row.compile) : "–"} | ${row.sandboxRate.toFixed(1)} | ${row.bareRate.toFixed(1)} | ${verdict(row)} |`,
      );
    }
    console.log(
      `\nbare: the same interpreter + runner (or the same compiled binary) spawned from Node with JSON on stdin and the result on fd 3, no isolation. ` +
        `Fresh bwrap: no warm runner, each run in a workspace of its own (Go, Rust: the cached binary, no compile). Warm: Python forks from the workspace's idle zygote, JavaScript takes a pre-started Node.js, Go and Rust a pre-started sandbox the cached binary is hard-linked into. ` +
        `Overhead = fresh bwrap minus bare, p50; "cached" for Go and Rust = fresh / warm p50. ` +
        `Baseline and sandbox runs alternate, so changes in the machine's load hit both. ` +
        `Warm runs leave ${WARM_GAP_MS} ms between requests for the pool to refill; runs/s uses ${CONCURRENCY} callers back to back (${THROUGHPUT_RUNS} runs). ` +
        `First compile: ${COMPILE_ITERATIONS} fresh sources per language.`,
    );
  } finally {
    await warm.close();
    await cold.close();
  }
}

const part = option("part", "all");
const seconds = Number(option("seconds", "10"));

// ---------------------------------------------------------------------------------------------
// Two workspaces: one floods the sandbox, the other runs light code; the light runs alone first.

const LIGHT = "def main(inputs):\n    return {'n': inputs['n'] + 1}\n";
/** A busy loop: the flood keeps every slot it may have busy. */
const HEAVY =
  "def main(inputs):\n    total = 0\n    for i in range(3_000_000):\n        total += i\n    return {'total': total}\n";
const LIGHT_RUNS = 60;
const FLOODERS = 8;

async function timedRun(sandbox: Sandbox, workspaceId: string, code: string): Promise<number> {
  const started = performance.now();
  const result = await sandbox.run({ workspaceId, language: "python", code, input: { n: 1 } });
  if (result.error) throw new Error(`run failed: ${JSON.stringify(result.error)}`);
  return performance.now() - started;
}

/** Light runs measured as a newcomer: each after the flood had the sandbox alone for longer than the window. */
const NEWCOMER_RUNS = 3;

async function tenantsWith(
  settings: { perWorkspaceConcurrency?: number; contentionWindowMs?: number },
  label: string,
): Promise<string[]> {
  const sandbox = await createSandbox({ uidBase: 1_710_000_000, ...settings });
  try {
    const { concurrency, perWorkspaceConcurrency, contentionWindowMs } = sandbox.runtimes();
    for (let i = 0; i < 5; i++) await timedRun(sandbox, "wsp_light", LIGHT);
    const alone: number[] = [];
    for (let i = 0; i < LIGHT_RUNS; i++) {
      alone.push(await timedRun(sandbox, "wsp_light", LIGHT));
      await sleep(20);
    }
    let isFlooding = true;
    const floodRuns: number[] = [];
    let refused = 0;
    const flood = Array.from({ length: FLOODERS }, async () => {
      while (isFlooding) {
        try {
          floodRuns.push(await timedRun(sandbox, "wsp_flood", HEAVY));
        } catch {
          refused++;
        }
      }
    });
    await sleep(500);
    const flooded: number[] = [];
    for (let i = 0; i < LIGHT_RUNS; i++) {
      flooded.push(await timedRun(sandbox, "wsp_light", LIGHT));
      await sleep(20);
    }
    // A newcomer: the light workspace comes back after the flood had the pool to itself past the window.
    const newcomer: number[] = [];
    if (contentionWindowMs > 0) {
      for (let i = 0; i < NEWCOMER_RUNS; i++) {
        await sleep(contentionWindowMs + 1000);
        newcomer.push(await timedRun(sandbox, "wsp_light", LIGHT));
      }
    }
    isFlooding = false;
    await Promise.all(flood);
    const ratio = percentile(flooded, 99) / percentile(alone, 99);
    const window =
      contentionWindowMs > 0 ? `borrows when alone ${contentionWindowMs / 1000} s` : "no borrowing";
    const setting = `pool ${concurrency}, share ${perWorkspaceConcurrency}, ${window} (${label})`;
    const floodP50 = fmt(percentile(floodRuns, 50));
    return [
      `| ${setting} | alone (baseline) | ${fmt(percentile(alone, 50))} | ${fmt(percentile(alone, 99))} | – |`,
      `| ${setting} | while another workspace floods (${FLOODERS} callers; its runs ${floodP50} ms p50, waits included; ${refused} refused) | ${fmt(percentile(flooded, 50))} | ${fmt(percentile(flooded, 99))} | ${ratio.toFixed(2)}× ${ratio <= 2 ? "✓" : "✗"} (≤ 2×) |`,
      ...(newcomer.length === 0
        ? []
        : [
            `| ${setting} | a newcomer: each run after the flood had the pool alone for ${contentionWindowMs / 1000 + 1} s (${newcomer.length} runs; it takes a borrowed slot back at once) | ${fmt(percentile(newcomer, 50))} | ${fmt(Math.max(...newcomer))} (max) | – |`,
          ]),
    ];
  } finally {
    await sandbox.close();
  }
}

/** Runs that hold a slot for their whole 60 s timeout: CPU-bound, as the issue's hog's loops were. */
const HOG_60S =
  "import time\ndef main(inputs):\n    end = time.monotonic() + 59\n    while time.monotonic() < end:\n        pass\n    return {}\n";
const NEWCOMERS = 8;

/**
 * A workspace's first run while another workspace holds the whole pool with 60 s runs (it borrowed
 * every slot beyond its share after being alone for the window), next to the same first run on an
 * idle sandbox. Each newcomer is a workspace never seen before and comes after the hog has had the
 * pool alone for the window again, so every one of them finds all slots taken.
 */
async function newcomerWhileHogged(): Promise<void> {
  const sandbox = await createSandbox({ uidBase: 1_712_000_000 });
  const stop = new AbortController();
  try {
    const { concurrency, perWorkspaceConcurrency, contentionWindowMs } = sandbox.runtimes();
    const firstRun = (workspaceId: string) => timedRun(sandbox, workspaceId, LIGHT);
    for (let i = 0; i < 3; i++) await firstRun(`wsp_warmup_${i}`);
    const idle: number[] = [];
    for (let i = 0; i < NEWCOMERS; i++) {
      idle.push(await firstRun(`wsp_idle_${i}`));
      await sleep(100);
    }
    // More hog runs than the pool: the pool is all the hog's, and it has runs waiting besides.
    const hog = Array.from({ length: concurrency + 2 }, () =>
      sandbox
        .run({
          workspaceId: "wsp_hog",
          language: "python",
          code: HOG_60S,
          input: {},
          timeoutMs: 60_000,
          signal: stop.signal,
        })
        .catch(() => undefined),
    );
    const hogged: number[] = [];
    let fullPools = 0;
    for (let i = 0; i < NEWCOMERS; i++) {
      await sleep(contentionWindowMs + 1000);
      const stats = sandbox.stats();
      if (stats.active >= concurrency && stats.borrowed === concurrency - perWorkspaceConcurrency)
        fullPools++;
      hogged.push(await firstRun(`wsp_newcomer_${i}`));
    }
    stop.abort(new Error("bench over"));
    await Promise.all(hog);
    const p99 = percentile(hogged, 99);
    const setting = `pool ${concurrency}, share ${perWorkspaceConcurrency}, borrows when alone ${contentionWindowMs / 1000} s`;
    console.log(
      `\n## A newcomer's first run while another workspace holds the pool with 60 s runs (ms) — ${availableParallelism()} cores (load average ${loadavg()[0]?.toFixed(1)})\n`,
    );
    console.log("| scheduling | newcomer's first run | p50 | p99 | target |");
    console.log("|---|---|---|---|---|");
    console.log(
      `| ${setting} | on an idle sandbox (baseline) | ${fmt(percentile(idle, 50))} | ${fmt(percentile(idle, 99))} | – |`,
    );
    console.log(
      `| ${setting} | while the hog holds all ${concurrency} slots with 60 s CPU loops (${fullPools}/${NEWCOMERS} found the pool full and borrowed) | ${fmt(percentile(hogged, 50))} | ${fmt(p99)} | ${p99 <= 1000 ? "✓" : "✗"} ≤ 1000 |`,
    );
    console.log(
      `\n${NEWCOMERS} workspaces' first runs (a trivial Python function; wait for a slot included), each ${contentionWindowMs / 1000 + 1} s after the previous, so the hog has borrowed the pool back in between. ` +
        "A workspace within its share takes borrowed slots back at once, beside the borrowed runs (the pool runs over its size until they end); " +
        "before, it waited for one of the hog's runs to end: up to its 60 s timeout, past the 30 s queue timeout (429 sandbox_busy).",
    );
  } finally {
    stop.abort(new Error("bench over"));
    await sandbox.close();
  }
}

async function tenants(): Promise<void> {
  await newcomerWhileHogged();
  const rows = [
    ...(await tenantsWith({}, "defaults")),
    ...(await tenantsWith({ contentionWindowMs: 0 }, "quota only")),
    ...(await tenantsWith(
      { perWorkspaceConcurrency: availableParallelism(), contentionWindowMs: 0 },
      "whole pool",
    )),
  ];
  console.log(
    `\n## Two workspaces: a light one's Python runs (ms) — ${availableParallelism()} cores (load average ${loadavg()[0]?.toFixed(1)})\n`,
  );
  console.log("| scheduling | light workspace's runs | p50 | p99 | p99 vs alone |");
  console.log("|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log(
    `\n${LIGHT_RUNS} light runs, 20 ms apart, alone and then while ${FLOODERS} callers of another workspace run a busy loop back to back. ` +
      "By default the flood keeps to its share while the light workspace came within the window (5 s), and borrows the whole pool once it has been alone that long; " +
      "a newcomer then takes a borrowed slot back at once (the pool runs over its size until the borrowed run ends), and the flood keeps to its share again. " +
      "With the share at the whole pool, only the round robin protects the light workspace (it waits for at most one flood run, every time).",
  );
}

// ---------------------------------------------------------------------------------------------
// Code nodes through the builder's API, next to the same code run in-process by the bare runtime.

const NODE_CODE = {
  javascript: "function main(inputs) {\n  return { n: inputs.n + 1 };\n}\n",
  // The same function, but naming a Node.js global sends it down the old path: a Node.js process per run.
  "javascript (process per run, old path)":
    "// keeps to the process path: it names process\nfunction main(inputs) {\n  return { n: inputs.n + 1 };\n}\n",
  python: "def main(inputs):\n    return {'n': inputs['n'] + 1}\n",
} as const;
type CodeVariant = keyof typeof NODE_CODE;
const CHAIN_LENGTH = 20;
const CHAIN_RUNS = 30;
const CLIENTS = 10;

function codeWorkflow(variant: CodeVariant, length: number) {
  const language = variant === "python" ? "python" : "javascript";
  const nodes: Record<string, unknown>[] = [
    {
      id: "start",
      type: "start",
      position: { x: 0, y: 0 },
      data: { inputs: [{ name: "n", type: "number", required: true }] },
    },
  ];
  const edges: Record<string, unknown>[] = [];
  let previous = "start";
  for (let i = 1; i <= length; i++) {
    const id = `code${i}`;
    nodes.push({
      id,
      type: "code",
      position: { x: 0, y: 0 },
      data: {
        language,
        code: NODE_CODE[variant],
        inputs: [{ name: "n", value: `{{${previous}.n}}` }],
        outputs: [{ name: "n", type: "number" }],
      },
    });
    edges.push({ id: `e${i}`, source: previous, target: id });
    previous = id;
  }
  nodes.push({
    id: "end",
    type: "end",
    position: { x: 0, y: 0 },
    data: { outputs: [{ name: "n", value: `{{${previous}.n}}` }] },
  });
  edges.push({ id: "e_end", source: previous, target: "end" });
  return { nodes, edges };
}

/** Calls main in this process `times` times (JavaScript: a vm context of this Node.js); answers ms per call. */
function inProcessJavaScript(times: number): number {
  const main = runInNewContext(`${NODE_CODE.javascript}; main`) as (inputs: { n: number }) => { n: number };
  let n = 0;
  const started = performance.now();
  for (let i = 0; i < times; i++) n = main({ n }).n;
  if (n !== times) throw new Error("in-process JavaScript went wrong");
  return (performance.now() - started) / times;
}

/** The same for Python: one python3 process calls main `times` times and reports ms per call. */
function inProcessPython(times: number): number {
  const script = `${NODE_CODE.python}\nimport time\nn = 0\nstarted = time.perf_counter()\nfor _ in range(${times}):\n    n = main({'n': n})['n']\nprint((time.perf_counter() - started) * 1000 / ${times})\n`;
  const result = spawnSync("/usr/bin/python3", ["-I", "-c", script], { encoding: "utf8" });
  return Number(result.stdout.trim());
}

/**
 * CPU seconds spent so far by a process and everything under it (the builder, its sandboxes and the
 * children they already reaped), from /proc: what a run costs whatever else the machine is doing.
 */
function treeCpuSeconds(rootPid: number): number {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command (which may hold spaces) in parentheses: state ppid … utime stime cutime cstime.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
    stats.set(Number(name), { parent: Number(fields[1]), ticks });
  }
  const inTree = (pid: number): boolean => {
    for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
      if (current === rootPid) return true;
      current = stats.get(current)?.parent ?? 0;
    }
    return false;
  };
  let ticks = 0;
  for (const [pid, stat] of stats) if (inTree(pid)) ticks += stat.ticks;
  return ticks / 100; // USER_HZ
}

/** A builder started with `env` on a port of its own, with a bench user and the calls the passes make. */
async function builderUnder(env: Record<string, string>) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const builder = await startService(
    "apps/builder/src/server.ts",
    { PORT: String(port), DATA_DIR: temporaryDataDir("bench-sandbox"), PUBLIC_URL: base, ...env },
    `${base}/healthz`,
  );
  try {
    const { key } = await benchUser(base);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const create = async (name: string, graph: unknown) => {
      const response = await fetch(`${base}/api/workflows`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name, graph }),
      });
      if (response.status !== 201) throw new Error(`create ${name}: ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    };
    const runOnce = async (id: string, expected: number) => {
      const started = performance.now();
      const response = await fetch(`${base}/api/workflows/${id}/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify({ inputs: { n: 0 } }),
      });
      const body = (await response.json()) as { status: string; outputs: { n?: unknown } };
      if (body.status !== "succeeded" || Number(body.outputs.n) !== expected)
        throw new Error(`run failed: ${JSON.stringify(body)}`);
      return performance.now() - started;
    };
    /** `CLIENTS` callers back to back for `seconds`; every answer checked. */
    const rate = async (id: string, expected = 1) => {
      const pid = builder.process.pid ?? 0;
      const cpuBefore = treeCpuSeconds(pid);
      let runs = 0;
      const latencies: number[] = [];
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (performance.now() < until) {
            latencies.push(await runOnce(id, expected));
            runs++;
          }
        }),
      );
      const cpuMsPerRun = ((treeCpuSeconds(pid) - cpuBefore) * 1000) / Math.max(1, runs);
      return { perSecond: runs / seconds, latencies, cpuMsPerRun };
    };
    return { create, runOnce, rate, stop: () => builder.stop() };
  } catch (error) {
    await builder.stop();
    throw error;
  }
}

// What the machine's cores could serve if the service had them to itself (the shared machine's load aside).
const cpuColumn = (ms: number) => `${ms.toFixed(1)} → ${((availableParallelism() * 1000) / ms).toFixed(0)}`;
const TARGETS = { javascript: 100, python: 60 } as const;

async function workflows(): Promise<void> {
  const builder = await builderUnder({});
  try {
    const { create, runOnce, rate } = builder;
    const rows: string[] = [];
    // The same API, engine and recording without a Code node: the ceiling the sandbox is measured under.
    const passThrough = await create("no code", codeWorkflow("javascript", 0));
    for (let i = 0; i < 5; i++) await runOnce(passThrough, 0);
    const ceiling = await rate(passThrough, 0);
    rows.push(
      `| none (Start → End, baseline) | ${ceiling.perSecond.toFixed(1)} | ${pair(ceiling.latencies)} | ${cpuColumn(ceiling.cpuMsPerRun)} | – | – | – |`,
    );
    for (const variant of Object.keys(NODE_CODE) as CodeVariant[]) {
      const language = variant === "python" ? "python" : "javascript";
      const single = await create(`${variant} single`, codeWorkflow(variant, 1));
      const chain = await create(`${variant} chain`, codeWorkflow(variant, CHAIN_LENGTH));
      for (let i = 0; i < 5; i++) await runOnce(single, 1);
      const throughput = await rate(single);
      await runOnce(chain, CHAIN_LENGTH);
      const chainLatencies: number[] = [];
      for (let i = 0; i < CHAIN_RUNS; i++) chainLatencies.push(await runOnce(chain, CHAIN_LENGTH));
      const perCall = language === "javascript" ? inProcessJavaScript(100_000) : inProcessPython(100_000);
      const target = TARGETS[language];
      const chainP50 = percentile(chainLatencies, 50);
      rows.push(
        `| ${variant} | ${throughput.perSecond.toFixed(1)} ${throughput.perSecond >= target ? "✓" : "✗"} (≥ ${target}) | ${pair(throughput.latencies)} | ${cpuColumn(throughput.cpuMsPerRun)} | ${(1000 / perCall).toFixed(0)} | ${fmt(chainP50)}${language === "javascript" ? ` ${chainP50 <= 250 ? "✓" : "✗"} (≤ 250)` : ""} | ${(perCall * CHAIN_LENGTH).toFixed(3)} |`,
      );
    }
    console.log(
      `\n## Code-node workflows through the API — ${availableParallelism()} cores (load average ${loadavg()[0]?.toFixed(1)}), PGlite, every run recorded and billed\n`,
    );
    console.log(
      `| language | Start → Code → End runs/s @${CLIENTS} clients | its latency p50 / p95 ms | CPU ms per run (builder + sandboxes) → runs/s on ${availableParallelism()} idle cores | same main in-process, calls/s (bare runtime) | ${CHAIN_LENGTH}-Code-node chain p50 ms (1 client) | same ${CHAIN_LENGTH} calls in-process, ms |`,
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const row of rows) console.log(row);
    console.log(
      `\nIn-process: main called in a loop by this Node.js (a vm context) or by one python3, no sandbox, no engine, no database: what n8n-style in-process execution costs at best. ` +
        `Runs/s: ${CLIENTS} callers back to back for ${seconds} s through POST /api/workflows/{id}/runs; chain: ${CHAIN_RUNS} sequential runs.`,
    );
  } finally {
    await builder.stop();
  }
  await borrowing();
}

/**
 * The one workspace's runs/s with the default scheduling (it borrows the whole pool when alone) next
 * to its share only (SANDBOX_CONTENTION_WINDOW_MS=0): two builders, measured in turn, twice each.
 */
async function borrowing(): Promise<void> {
  const settings: { label: string; env: Record<string, string> }[] = [
    { label: "defaults (borrows when alone)", env: {} },
    { label: "share only (SANDBOX_CONTENTION_WINDOW_MS=0)", env: { SANDBOX_CONTENTION_WINDOW_MS: "0" } },
  ];
  const builders = [];
  try {
    for (const setting of settings) builders.push(await builderUnder(setting.env));
    const rows: string[] = [];
    for (const language of ["javascript", "python"] as const) {
      const singles: string[] = [];
      for (const builder of builders) {
        const single = await builder.create(`${language} single`, codeWorkflow(language, 1));
        for (let i = 0; i < 5; i++) await builder.runOnce(single, 1);
        singles.push(single);
      }
      const measured = settings.map(() => ({
        rates: [] as number[],
        latencies: [] as number[],
        cpu: [] as number[],
      }));
      for (let round = 0; round < 2; round++) {
        for (const [index, builder] of builders.entries()) {
          const result = await builder.rate(singles[index] ?? "");
          measured[index]?.rates.push(result.perSecond);
          measured[index]?.latencies.push(...result.latencies);
          measured[index]?.cpu.push(result.cpuMsPerRun);
        }
      }
      for (const [index, setting] of settings.entries()) {
        const { rates, latencies, cpu } = measured[index] ?? { rates: [], latencies: [], cpu: [] };
        const mean = rates.reduce((sum, value) => sum + value, 0) / rates.length;
        rows.push(
          `| ${language} | ${setting.label} | ${rates.map((value) => value.toFixed(1)).join(", ")} → ${mean.toFixed(1)} ${mean >= TARGETS[language] ? "✓" : "✗"} (≥ ${TARGETS[language]}) | ${pair(latencies)} | ${cpuColumn(cpu.reduce((sum, value) => sum + value, 0) / cpu.length)} |`,
        );
      }
    }
    console.log(
      `\n## One workspace's Code-node runs/s, borrowing A/B — ${availableParallelism()} cores (load average ${loadavg()[0]?.toFixed(1)})\n`,
    );
    console.log(
      `| language | scheduling | Start → Code → End runs/s @${CLIENTS} clients (round 1, 2 → mean) | latency p50 / p95 ms | CPU ms per run → runs/s on ${availableParallelism()} idle cores |`,
    );
    console.log("|---|---|---|---|---|");
    for (const row of rows) console.log(row);
    console.log(`\nTwo builders side by side, measured in turn (A B A B), ${seconds} s each.`);
  } finally {
    for (const builder of builders) await builder.stop();
  }
}

const deadline = setTimeout(() => {
  console.error("sandbox bench: gave up after 12 minutes");
  process.exit(1);
}, 720_000);
deadline.unref();
if (part === "all" || part === "roundtrips") await roundTrips();
if (part === "all" || part === "tenants") await tenants();
if (part === "all" || part === "workflows") await workflows();
