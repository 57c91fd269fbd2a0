// npm run bench -- startup [--warm-runs 3] [--idle-seconds 10] [--no-fresh] [--no-workload]
// What a user of `npm start` waits for and what it costs the machine (issue 25):
// 1. Time from `npm start` to both /healthz answering: the first start of a fresh clone (no build,
//    no data: both services and the studio are built, both databases created) and warm restarts.
// 2. Memory of each service at idle after start, counting every process it starts (sandbox runners
//    included): RSS summed over the tree, and PSS (shared pages divided among the processes that share
//    them, so the sum is what the tree really holds).
// 3. The same after a standard workload: sign-ups, 100 chat turns against a fake model, 50 workflow
//    runs, 1,000 chunks ingested and searched.
// Baseline in the same run: a bare Hono server with an empty PGlite, started the same way.
// Targets: warm ≤ 2 s, fresh ≤ 8 s; both services at idle ≤ 700 MiB; after the workload ≤ 1 GiB.
// The fresh start deletes this checkout's apps/*/dist and apps/studio/dist first (--no-fresh keeps them).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort, startFakeOpenAI } from "@app/testing";
import { option, printTable, repoRoot, temporaryDataDir } from "./lib.ts";

const warmRuns = Number(option("warm-runs", "3"));
const idleSeconds = Number(option("idle-seconds", "10"));
const isFreshMeasured = !process.argv.includes("--no-fresh");
const isWorkloadRun = !process.argv.includes("--no-workload");

const MIB = 1024 * 1024;

interface Memory {
  rss: number;
  pss: number;
  processes: number;
  /** The service's own process alone (the rest are the processes it started: sandbox runners). */
  main: { rss: number; pss: number };
}

/** The process and every descendant, from /proc. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const all: number[] = [];
  const visit = (id: number) => {
    all.push(id);
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return all;
}

function memoryOf(pid: number): Memory {
  let rss = 0;
  let pss = 0;
  const main = { rss: 0, pss: 0 };
  const pids = tree(pid);
  for (const id of pids) {
    if (id === pid) Object.assign(main, { rss: -rss, pss: -pss });
    try {
      const rollup = readFileSync(`/proc/${id}/smaps_rollup`, "utf8");
      rss += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
      pss += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // Another uid's process (a sandbox runner) may hide its smaps; fall back to its status.
      try {
        const status = readFileSync(`/proc/${id}/status`, "utf8");
        const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
        rss += kb;
        pss += kb;
      } catch {
        // Gone.
      }
    }
    if (id === pid) Object.assign(main, { rss: main.rss + rss, pss: main.pss + pss });
  }
  return { rss, pss, processes: pids.length, main };
}

/** The pid listening on a port. */
function listenerOf(port: number): number {
  const out = execFileSync("ss", ["-ltnpH", `sport = :${port}`]).toString();
  const pid = Number(/pid=(\d+)/.exec(out)?.[1]);
  if (!pid) throw new Error(`nothing listens on ${port}`);
  return pid;
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function waitHealthy(urls: string[], child: ChildProcess, started: number): Promise<number> {
  while (!(await Promise.all(urls.map(isHealthy))).every(Boolean)) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before answering`);
    if (performance.now() - started > 300_000) throw new Error("not healthy after 300 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (performance.now() - started) / 1000;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    // Ctrl-C reaches the whole foreground process group.
    if (child.pid) process.kill(-child.pid, "SIGINT");
  });
}

const idle = () => new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));

/** `npm start` as a user runs it, in its own process group. */
async function npmStart(dataDir: string, ports: { builder: number; payments: number }) {
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(ports.builder),
      PAYMENTS_PORT: String(ports.payments),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      // The workload signs several users up from one address, and its fake model is on loopback.
      AUTH_SIGN_IN_PER_MINUTE: "1000",
      ALLOW_PRIVATE_URLS: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const seconds = await waitHealthy(
    [`http://127.0.0.1:${ports.builder}/healthz`, `http://127.0.0.1:${ports.payments}/healthz`],
    child,
    started,
  );
  return { child, seconds };
}

// A bare Hono server with an empty PGlite: what any Node service on an embedded PostgreSQL costs.
const BARE_SERVER = `
  import { serve } from "@hono/node-server";
  import { Hono } from "hono";
  import { PGlite } from "@electric-sql/pglite";
  const db = await PGlite.create(process.env.BARE_DATA_DIR);
  await db.query("select 1");
  const app = new Hono().get("/healthz", (c) => c.json({ status: "ok" }));
  const server = serve({ fetch: app.fetch, port: Number(process.env.BARE_PORT), hostname: "127.0.0.1" });
  process.on("SIGINT", () => { server.close(); void db.close().then(() => process.exit(0)); });
`;

async function bareServer(dataDir: string, port: number) {
  const started = performance.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", BARE_SERVER], {
    cwd: join(repoRoot, "apps/builder"),
    env: { ...process.env, BARE_DATA_DIR: dataDir, BARE_PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  const seconds = await waitHealthy([`http://127.0.0.1:${port}/healthz`], child, started);
  return { child, seconds };
}

const rows: (string | number)[][] = [];
const mib = (bytes: number) => Math.round(bytes / MIB);

// --- Baseline -------------------------------------------------------------------------------
{
  const dataDir = temporaryDataDir("bench-startup-bare");
  const port = await freePort();
  const first = await bareServer(dataDir, port);
  await stop(first.child);
  const warm = await bareServer(dataDir, port);
  await idle();
  const memory = memoryOf(warm.child.pid ?? 0);
  rows.push([
    "bare Hono + empty PGlite (baseline)",
    first.seconds,
    warm.seconds,
    `${mib(memory.rss)} / ${mib(memory.pss)}`,
    "—",
    "—",
    memory.processes,
  ]);
  await stop(warm.child);
  rmSync(dataDir, { recursive: true, force: true });
}

// --- npm start ------------------------------------------------------------------------------
const dataDir = temporaryDataDir("bench-startup");
const ports = { builder: await freePort(), payments: await freePort() };
let freshSeconds: number | undefined;
if (isFreshMeasured) {
  // What a fresh clone has after `npm install`: no build output, no data.
  for (const dir of ["apps/builder/dist", "apps/payments/dist", "apps/studio/dist"]) {
    rmSync(join(repoRoot, dir), { recursive: true, force: true });
  }
  const fresh = await npmStart(dataDir, ports);
  freshSeconds = fresh.seconds;
  await stop(fresh.child);
} else {
  const prepare = await npmStart(dataDir, ports);
  await stop(prepare.child);
}
const warmTimes: number[] = [];
let running: Awaited<ReturnType<typeof npmStart>> | undefined;
for (let i = 0; i < warmRuns; i++) {
  running = await npmStart(dataDir, ports);
  warmTimes.push(running.seconds);
  if (i < warmRuns - 1) await stop(running.child);
}
if (!running) throw new Error("--warm-runs must be at least 1");
warmTimes.sort((a, b) => a - b);
const warmMedian = warmTimes[Math.floor(warmTimes.length / 2)] ?? 0;

await idle();
const idleMemory = {
  builder: memoryOf(listenerOf(ports.builder)),
  payments: memoryOf(listenerOf(ports.payments)),
};
let loaded: typeof idleMemory | undefined;
try {
  if (isWorkloadRun) {
    const { standardWorkload } = await import("./startup-workload.ts");
    await standardWorkload({ builder: `http://127.0.0.1:${ports.builder}`, fakeModel: startFakeOpenAI });
    await idle();
    loaded = {
      builder: memoryOf(listenerOf(ports.builder)),
      payments: memoryOf(listenerOf(ports.payments)),
    };
  }
} finally {
  await stop(running.child);
  rmSync(dataDir, { recursive: true, force: true });
}

for (const service of ["builder", "payments"] as const) {
  rows.push([
    `npm start: ${service}`,
    "",
    "",
    `${mib(idleMemory[service].rss)} / ${mib(idleMemory[service].pss)}`,
    loaded ? `${mib(loaded[service].rss)} / ${mib(loaded[service].pss)}` : "—",
    "",
    idleMemory[service].processes,
  ]);
}
for (const service of ["builder", "payments"] as const) {
  const idleMain = idleMemory[service].main;
  const loadedMain = loaded?.[service].main;
  const started = (memory: Memory) => ({
    rss: memory.rss - memory.main.rss,
    pss: memory.pss - memory.main.pss,
  });
  rows.push([
    `  ${service}: its own process`,
    "",
    "",
    `${mib(idleMain.rss)} / ${mib(idleMain.pss)}`,
    loadedMain ? `${mib(loadedMain.rss)} / ${mib(loadedMain.pss)}` : "—",
    "",
    1,
  ]);
  if (idleMemory[service].processes > 1) {
    const idleStarted = started(idleMemory[service]);
    const loadedStarted = loaded ? started(loaded[service]) : undefined;
    rows.push([
      `  ${service}: processes it started (sandbox)`,
      "",
      "",
      `${mib(idleStarted.rss)} / ${mib(idleStarted.pss)}`,
      loadedStarted ? `${mib(loadedStarted.rss)} / ${mib(loadedStarted.pss)}` : "—",
      "",
      idleMemory[service].processes - 1,
    ]);
  }
}
const sum = (memory: typeof idleMemory, key: "rss" | "pss") => memory.builder[key] + memory.payments[key];
rows.push([
  "npm start: both",
  freshSeconds ?? "—",
  warmMedian,
  `${mib(sum(idleMemory, "rss"))} / ${mib(sum(idleMemory, "pss"))}`,
  loaded ? `${mib(sum(loaded, "rss"))} / ${mib(sum(loaded, "pss"))}` : "—",
  warmTimes.map((seconds) => seconds.toFixed(2)).join(", "),
  idleMemory.builder.processes + idleMemory.payments.processes,
]);

console.log(
  `\nStartup and memory (${warmRuns} warm runs, memory sampled after ${idleSeconds} s idle; MiB as RSS / PSS)\n`,
);
printTable(
  [
    "what",
    "fresh start (s)",
    "warm start, median (s)",
    "idle MiB",
    "after workload MiB",
    "warm runs (s)",
    "processes",
  ],
  rows,
);
console.log("\nTargets: warm ≤ 2 s, fresh ≤ 8 s, both idle ≤ 700 MiB, both after the workload ≤ 1024 MiB.");
