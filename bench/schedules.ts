// npm run bench -- schedules [--schedules 1000] [--every 5] [--seconds 30]
// 1,000 workflow schedules on a seconds cron, accelerated from "every minute" to every `--every`
// seconds (schedule i fires at second i mod every, so the load is even), against one builder process
// and then two, on PostgreSQL. Each tick's fire drift (the run's start minus its scheduled time), and
// the ticks missed (claimed past but never run) and doubled (run twice). Baseline: a bare setTimeout
// loop aimed at every whole second in this process, over the same window.

import { freePort } from "@app/testing";
import pg from "pg";
import { cronTicks } from "../apps/builder/src/workflows/schedules/cron.ts";
import { benchDatabase, benchUser, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const scheduleCount = Number(option("schedules", "1000"));
const every = Number(option("every", "5"));
const seconds = Number(option("seconds", "30"));
/** The API's limit of schedules per workflow. */
const PER_WORKFLOW = 100;

const graph = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    { id: "done", type: "end", position: { x: 0, y: 0 }, data: { outputs: [{ name: "ok", value: "yes" }] } },
  ],
  edges: [{ id: "e", source: "start", target: "done" }],
};

interface Outcome {
  expected: number;
  fired: number;
  missed: number;
  doubled: number;
  drifts: number[];
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0);

/** The drift of a bare timer loop: setTimeout to each next whole second, for `ms`. */
function timerBaseline(ms: number): Promise<number[]> {
  const drifts: number[] = [];
  const end = Date.now() + ms;
  return new Promise((resolve) => {
    const next = () => {
      const target = Math.ceil((Date.now() + 1) / 1000) * 1000;
      if (target > end) return resolve(drifts);
      setTimeout(() => {
        drifts.push(Date.now() - target);
        next();
      }, target - Date.now());
    };
    next();
  });
}

async function measure(processes: number): Promise<Outcome & { baseline: number[] }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const database = await benchDatabase("postgres", processes);
  const env = {
    PORT: String(port),
    DATA_DIR: temporaryDataDir("bench-sched"),
    PUBLIC_URL: base,
    ...database.env,
  };
  const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    const { key } = await benchUser(base);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    const workflows: string[] = [];
    for (let i = 0; i < Math.ceil(scheduleCount / PER_WORKFLOW); i++) {
      workflows.push((await post("/api/workflows", { name: `bench ${i}`, graph })).id);
    }
    const creates: Promise<unknown>[] = [];
    for (let i = 0; i < scheduleCount; i++) {
      const cron = `${i % every}-59/${every} * * * * *`;
      creates.push(
        post(`/api/workflows/${workflows[Math.floor(i / PER_WORKFLOW)]}/schedules`, {
          cron,
          timezone: "Europe/Berlin",
          overlap: "allow",
          catch_up: "all",
        }),
      );
      if (creates.length === 20) await Promise.all(creates.splice(0));
    }
    await Promise.all(creates);
    const baseline = processes === 1 ? timerBaseline(seconds * 1000) : Promise.resolve([]);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));

    // Stop every schedule at once; each one's unclaimed next tick says which ticks it should have run.
    const stopped = await client.query<{ id: string; cron: string; created_at: Date; stopped_at: Date }>(
      `with old as (select id, next_fire_at from workflow_schedules for update)
       update workflow_schedules s set is_enabled = false, next_fire_at = null from old
       where s.id = old.id returning s.id, s.cron, s.timezone, s.created_at, old.next_fire_at as stopped_at`,
    );
    for (let waited = 0; waited < 120; waited++) {
      const running = await client.query(`select 1 from workflow_runs where status = 'running' limit 1`);
      if (running.rowCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const runs = await client.query<{
      schedule_id: string;
      scheduled_for: Date;
      started_at: Date;
      status: string;
    }>(
      `select schedule_id, scheduled_for, started_at, status from workflow_runs where schedule_id is not null`,
    );
    const fired = new Map<string, number>();
    const drifts: number[] = [];
    for (const run of runs.rows) {
      const key = `${run.schedule_id} ${run.scheduled_for.toISOString()}`;
      fired.set(key, (fired.get(key) ?? 0) + 1);
      drifts.push(run.started_at.getTime() - run.scheduled_for.getTime());
    }
    let expected = 0;
    let missed = 0;
    for (const schedule of stopped.rows) {
      let tick = cronTicks(schedule.cron, "Europe/Berlin").next(schedule.created_at);
      while (tick && tick < schedule.stopped_at) {
        expected += 1;
        if (!fired.has(`${schedule.id} ${tick.toISOString()}`)) missed += 1;
        tick = cronTicks(schedule.cron, "Europe/Berlin").next(tick);
      }
    }
    const doubled = [...fired.values()].filter((count) => count > 1).length;
    const failed = runs.rows.filter((run) => run.status !== "succeeded").length;
    if (failed > 0) console.warn(`${failed} scheduled runs did not succeed`);
    return { expected, fired: runs.rows.length, missed, doubled, drifts, baseline: await baseline };
  } finally {
    await client.end();
    await builder.stop();
    await database.drop();
  }
}

const rows: (string | number)[][] = [];
const row = (setup: string, outcome: Pick<Outcome, "drifts"> & Partial<Outcome>) => {
  const sorted = [...outcome.drifts].sort((a, b) => a - b);
  rows.push([
    setup,
    outcome.expected ?? sorted.length,
    outcome.fired ?? sorted.length,
    outcome.missed ?? "–",
    outcome.doubled ?? "–",
    percentile(sorted, 50),
    percentile(sorted, 99),
    sorted.at(-1) ?? Number.NaN,
  ]);
};
const one = await measure(1);
row("bare setTimeout loop, each whole second (baseline)", { drifts: one.baseline });
row(`1 builder process, PostgreSQL`, one);
const two = await measure(2);
row(`2 builder processes, PostgreSQL`, two);

console.log(
  `\n${scheduleCount} schedules, each every ${every} s (${scheduleCount / every} ticks a second), ${seconds} s, catch_up all, overlap allow; drift = run start − scheduled time\n`,
);
printTable(["Setup", "Ticks due", "Runs", "Missed", "Doubled", "Drift p50 ms", "p99 ms", "max ms"], rows);
