// npm run bench -- generation [--iterations 200] [--large-mb 200]
// Our overhead on a generation that the fake Replicate completes instantly: POST
// /api/replicate/generate/image with `wait` (request → succeeded with its output stored), next to
// the bare `replicate` client against the same fake (create with `Prefer: wait`, and create plus
// downloading the output). Then one 200 MB video output, sampling the builder's resident memory
// while the copy streams into storage.
import { readFileSync } from "node:fs";
import { FAKE_REPLICATE_MODELS, freePort, startFakeReplicate } from "@app/testing";
import Replicate from "replicate";
import { option, printTable, startService, temporaryDataDir } from "./lib.ts";

const iterations = Number(option("iterations", "200"));
const largeMb = Number(option("large-mb", "200"));
const warmup = 20;
const token = "r8_bench";
const image = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}` as const;
const video = `${FAKE_REPLICATE_MODELS.video.owner}/${FAKE_REPLICATE_MODELS.video.name}` as const;

const fake = await startFakeReplicate({ apiToken: token, videoBytes: largeMb * 1024 * 1024 });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const builder = await startService(
  "apps/builder/src/server.ts",
  {
    PORT: String(port),
    DATA_DIR: temporaryDataDir("bench-generation"),
    REPLICATE_API_TOKEN: token,
    REPLICATE_BASE_URL: fake.baseUrl,
    // The fake serves outputs from 127.0.0.1.
    ALLOW_PRIVATE_URLS: "1",
  },
  `${base}/healthz`,
);

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function measure(run: () => Promise<void>): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
  };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0") / 1024;
}

try {
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: "bench@example.com", password: "benchmark-password", name: "Bench" }),
  });
  const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  let expectedOutputs = 1;
  const generate = async (kind: "image" | "video", model: string) => {
    const response = await fetch(`${base}/api/replicate/generate/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ model, input: { prompt: "bench" }, wait: 30 }),
    });
    const body = (await response.json()) as { status: string; outputs: unknown[] };
    if (response.status !== 201 || body.status !== "succeeded" || body.outputs.length !== expectedOutputs)
      throw new Error(`generation did not succeed: ${response.status} ${JSON.stringify(body)}`);
  };

  const client = new Replicate({ auth: token, baseUrl: fake.baseUrl, useFileOutput: false });
  const bareCreate = await measure(async () => {
    const prediction = await client.predictions.create({
      model: image,
      input: { prompt: "bench" },
      wait: 30,
    });
    if (prediction.status !== "succeeded") throw new Error(`bare prediction ${prediction.status}`);
  });
  const bareWithDownload = await measure(async () => {
    const prediction = await client.predictions.create({
      model: image,
      input: { prompt: "bench" },
      wait: 30,
    });
    const output = (prediction.output as string[])[0] ?? "";
    await (await fetch(output)).arrayBuffer();
  });
  const ours = await measure(() => generate("image", image));
  // The same request for a model whose output is text: everything but the file copy.
  fake.outcome = () => ({ output: "a caption, no file" });
  expectedOutputs = 0;
  const oursWithoutCopy = await measure(() => generate("image", image));
  fake.outcome = () => "instant";
  expectedOutputs = 1;

  // One large output: the builder's RSS is sampled while the copy streams.
  const pid = builder.process.pid ?? 0;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  const started = performance.now();
  await generate("video", video);
  const largeMs = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(pid));

  console.log(
    `\ngeneration benchmark: ${iterations} sequential generations after ${warmup} warm-up, fake Replicate completing instantly\n`,
  );
  printTable(
    ["case", "p50 ms", "p99 ms", "mean ms", "p50 added vs bare create"],
    [
      [
        "bare replicate client: predictions.create (Prefer: wait) — baseline",
        bareCreate.p50,
        bareCreate.p99,
        bareCreate.mean,
        "—",
      ],
      [
        "bare replicate client: create + download the PNG output",
        bareWithDownload.p50,
        bareWithDownload.p99,
        bareWithDownload.mean,
        `${(bareWithDownload.p50 - bareCreate.p50).toFixed(2)} ms`,
      ],
      [
        "ours: POST /api/replicate/generate/image (wait), no output file (text output)",
        oursWithoutCopy.p50,
        oursWithoutCopy.p99,
        oursWithoutCopy.mean,
        `${(oursWithoutCopy.p50 - bareCreate.p50).toFixed(2)} ms`,
      ],
      [
        "ours: POST /api/replicate/generate/image (wait) → succeeded, PNG output stored",
        ours.p50,
        ours.p99,
        ours.mean,
        `${(ours.p50 - bareCreate.p50).toFixed(2)} ms`,
      ],
    ],
  );
  console.log(
    `\nOverhead excluding the output copy (ours without a file − bare create): p50 ${(oursWithoutCopy.p50 - bareCreate.p50).toFixed(2)} ms. Target: ≤ 20 ms.`,
  );
  console.log(
    `The copy of one small PNG adds p50 ${(ours.p50 - oursWithoutCopy.p50).toFixed(2)} ms to ours; the bare client's download of it adds ${(bareWithDownload.p50 - bareCreate.p50).toFixed(2)} ms.`,
  );
  console.log(
    `\n${largeMb} MB video output copied into storage in ${(largeMs / 1000).toFixed(2)} s; builder RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB). Target: flat (streamed, not buffered).`,
  );
} finally {
  await builder.stop();
  await fake.close();
}
