// `npm run bench -- sandbox`: hello-world round trips per language through the sandbox, next to
// spawning the same interpreter or binary bare (no bwrap, no setpriv, no rlimits) in the same run.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
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

async function measure(times: number, once: () => Promise<number>, gapMs = 0): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    if (gapMs > 0) await sleep(gapMs);
    samples.push(await once());
  }
  return samples;
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
  cold: number[];
  warm: number[];
  /** Sandbox with no warm runner (interpreted) or with a cached binary (compiled): bwrap's own cost shows here. */
  isolated: number[];
  sandboxRate: number;
  bareRate: number;
}

async function benchInterpreted(
  language: "python" | "javascript",
  warm: Sandbox,
  cold: Sandbox,
): Promise<Row> {
  const command =
    language === "python"
      ? ["/usr/bin/python3", "-I", "-B", `${runners}runner.py`]
      : ["/usr/bin/node", "--max-old-space-size=192", `${runners}runner.cjs`];
  const stdin = JSON.stringify({ code: HELLO[language], input: INPUT });
  const bareOnce = () => bareRoundTrip(command, stdin);
  await bareOnce();
  const bare = await measure(ITERATIONS, bareOnce);
  const coldSamples = await measure(ITERATIONS, () => sandboxRoundTrip(cold, language, HELLO[language]));
  const warmSamples = await measure(
    ITERATIONS,
    () => sandboxRoundTrip(warm, language, HELLO[language]),
    WARM_GAP_MS,
  );
  const sandboxRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, () =>
    sandboxRoundTrip(warm, language, HELLO[language]),
  );
  const bareRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, bareOnce);
  return {
    language,
    bare,
    cold: coldSamples,
    warm: warmSamples,
    isolated: coldSamples,
    sandboxRate,
    bareRate,
  };
}

async function benchCompiled(language: "go" | "rust", sandbox: Sandbox): Promise<Row> {
  // Fresh source each time (a comment with a nonce), so every cold run really compiles.
  const cold = await measure(COMPILE_ITERATIONS, () =>
    sandboxRoundTrip(sandbox, language, `// ${randomBytes(8).toString("hex")}\n${HELLO[language]}`),
  );
  const binary = await sandbox.compiledBinary(language, HELLO[language]);
  const bareOnce = () => bareRoundTrip([binary], JSON.stringify(INPUT));
  await bareOnce();
  const bare = await measure(ITERATIONS, bareOnce);
  await sandboxRoundTrip(sandbox, language, HELLO[language]);
  const cached = await measure(ITERATIONS, () => sandboxRoundTrip(sandbox, language, HELLO[language]));
  const sandboxRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, () =>
    sandboxRoundTrip(sandbox, language, HELLO[language]),
  );
  const bareRate = await throughput(THROUGHPUT_RUNS, CONCURRENCY, bareOnce);
  return { language, bare, cold, warm: cached, isolated: cached, sandboxRate, bareRate };
}

function verdict(row: Row): string {
  const warm50 = percentile(row.warm, 50);
  const overhead = percentile(row.isolated, 50) - percentile(row.bare, 50);
  const checks: string[] = [];
  if (row.language === "python" || row.language === "javascript") {
    const ratio = warm50 / percentile(row.bare, 50);
    checks.push(`warm ${ratio.toFixed(2)}× bare ${ratio <= 2 ? "✓" : "✗"} (≤ 2×)`);
  } else {
    checks.push(`cached ${fmt(warm50)} ms ${warm50 <= 50 ? "✓" : "✗"} (≤ 50 ms)`);
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
    for (const language of ["go", "rust"] as const) rows.push(await benchCompiled(language, warm));

    const versions = Object.fromEntries(report.languages.map((entry) => [entry.language, entry.version]));
    console.log(
      `\n## Sandbox round trips (ms, p50 / p95) — ${availableParallelism()} cores, bubblewrap ${report.isolation.bubblewrap}, limits: ${report.limits.mechanism}\n`,
    );
    console.log(
      "| language | bare spawn (baseline) | sandbox cold (no warm runner / first compile) | sandbox warm (warm runner / cached binary) | runs/s @2 sandbox | runs/s @2 bare | targets |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const row of rows) {
      console.log(
        `| ${row.language} ${versions[row.language] ?? ""} | ${pair(row.bare)} | ${pair(row.cold)} | ${pair(row.warm)} | ${row.sandboxRate.toFixed(1)} | ${row.bareRate.toFixed(1)} | ${verdict(row)} |`,
      );
    }
    console.log(
      `\nbare: the same interpreter + runner (or the same compiled binary) spawned from Node with JSON on stdin and the result on fd 3, no isolation. ` +
        `Overhead = sandbox without a warm runner (Python, JS) or with the cached binary (Go, Rust) minus bare, p50. ` +
        `Warm runs leave ${WARM_GAP_MS} ms between requests for the pool to refill; runs/s uses ${CONCURRENCY} callers back to back (${THROUGHPUT_RUNS} runs). ` +
        `Cold Go/Rust: ${COMPILE_ITERATIONS} fresh sources compiled each.`,
    );
  } finally {
    await warm.close();
    await cold.close();
  }
}

await main();
