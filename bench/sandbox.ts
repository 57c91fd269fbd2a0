// `npm run bench -- sandbox`: hello-world round trips per language through the sandbox, next to
// spawning the same interpreter or binary bare (no bwrap, no setpriv, no rlimits) in the same run.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { createSandbox, type Language, type Sandbox } from "@app/sandbox";

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

async function sandboxRoundTrip(sandbox: Sandbox, language: Language, code: string): Promise<number> {
  const started = performance.now();
  const result = await sandbox.run({ language, code, input: INPUT });
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
  /** A warm runner (interpreter, or a pre-started sandbox the cached binary is linked into). */
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
      : ["/usr/bin/node", "--max-old-space-size=192", `${runners}runner.cjs`];
  const stdin = JSON.stringify({ code: HELLO[language], input: INPUT });
  const bareOnce = () => bareRoundTrip(command, stdin);
  await bareOnce();
  const samples = await interleaved(ITERATIONS, {
    bare: { once: bareOnce },
    cold: { once: () => sandboxRoundTrip(coldSandbox, language, HELLO[language]) },
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
    isolated: { once: () => sandboxRoundTrip(coldSandbox, language, HELLO[language]) },
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

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error("sandbox bench: gave up after 4 minutes");
    process.exit(1);
  }, 240_000);
  deadline.unref();
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
        `Fresh bwrap: no warm runner (Go, Rust: the cached binary, no compile). Warm: a pre-started sandbox (Go, Rust: the cached binary is hard-linked into it). ` +
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

await main();
