import { manualClock } from "@app/core";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../../test/harness.ts";
import { edge, node } from "../../../test/workflow-support.ts";
import { type BuilderApp, createBuilderApp } from "../../app.ts";
import { type BuilderDatabase, openBuilderDatabase } from "../../db/index.ts";
import { workflowRuns } from "../schema.ts";
import { claimDueTicks } from "./claim-due-ticks.ts";
import { workflowSchedules } from "./schema.ts";

// Two builders on one database race for the same ticks on a manual clock. On PostgreSQL
// (TEST_DATABASE_URL) the second has its own connection pool, as another process or host would; on
// PGlite the two share the embedded database's one connection.
const clock = manualClock(new Date("2026-06-01T10:00:00.500Z"));
let builder: TestBuilder;
let second: BuilderApp;
let secondDatabase: BuilderDatabase | undefined;
let cookie: string;

beforeAll(async () => {
  builder = await startTestBuilder({ clock });
  await builder.scheduler.stop();
  secondDatabase = builder.databaseUrl
    ? await openBuilderDatabase({ url: builder.databaseUrl, dataDir: undefined })
    : undefined;
  second = createBuilderApp({ ...builder.deps, db: secondDatabase?.db ?? builder.deps.db });
  await second.start();
  await second.scheduler.stop();
  ({ cookie } = await builder.signUp());
});
afterAll(async () => {
  await second?.stop();
  await secondDatabase?.close();
  await builder?.stop();
});

const graph = {
  nodes: [
    node("start", "start", { inputs: [] }),
    node("done", "end", { outputs: [{ name: "ok", value: "1" }] }),
  ],
  edges: [edge("start", "done")],
};

const created: string[] = [];
// A test's schedules go with its workflow when it ends: later tests move the clock on.
afterEach(async () => {
  for (const id of created.splice(0))
    await builder.request(`/api/workflows/${id}`, { method: "DELETE", cookie });
});

async function createWorkflow(): Promise<string> {
  const response = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name: "race", graph },
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  created.push(id);
  return id;
}

async function createSchedule(workflowId: string, body: Record<string, unknown>): Promise<string> {
  const response = await builder.request(`/api/workflows/${workflowId}/schedules`, {
    method: "POST",
    cookie,
    json: body,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** Both builders claim at once, twice each, then every run they started ends. */
async function race(): Promise<number[]> {
  const started = await Promise.all([
    builder.scheduler.runDue(),
    second.scheduler.runDue(),
    second.scheduler.runDue(),
    builder.scheduler.runDue(),
  ]);
  await Promise.all([builder.scheduler.settled(), second.scheduler.settled()]);
  return started;
}

/** How many runs each (schedule, tick) has. */
async function runsPerTick(workflowId: string): Promise<Map<string, number>> {
  const rows = await builder.deps.db
    .select({ scheduleId: workflowRuns.scheduleId, scheduledFor: workflowRuns.scheduledFor })
    .from(workflowRuns)
    .where(eq(workflowRuns.workflowId, workflowId));
  const counts = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.scheduleId} ${row.scheduledFor?.toISOString()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe("each tick fires exactly once across builders sharing the database", () => {
  it("30 every-second schedules, 8 seconds and a 5-second outage with catch_up all: every tick once, none lost", async () => {
    const workflowId = await createWorkflow();
    const schedules: string[] = [];
    for (let i = 0; i < 30; i++) {
      schedules.push(
        await createSchedule(workflowId, { cron: "* * * * * *", overlap: "allow", catch_up: "all" }),
      );
    }
    const expected = new Set<string>();
    const tickAt = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();
    const expectTicksUpTo = (from: number, to: number) => {
      for (let at = Math.ceil(from / 1000) * 1000; at <= to; at += 1000) {
        for (const id of schedules) expected.add(`${id} ${tickAt(at)}`);
      }
    };
    const startMs = clock.now().getTime();
    let claimedHere = 0;
    let claimedThere = 0;
    for (let second = 0; second < 8; second++) {
      clock.advance(1000);
      const started = await race();
      claimedHere += (started[0] ?? 0) + (started[3] ?? 0);
      claimedThere += (started[1] ?? 0) + (started[2] ?? 0);
    }
    // Nobody claims for 5 seconds; then both race for the backlog.
    clock.advance(5000);
    await race();
    expectTicksUpTo(startMs, clock.now().getTime());

    const counts = await runsPerTick(workflowId);
    const doubled = [...counts].filter(([, count]) => count > 1);
    expect(doubled).toEqual([]);
    expect(new Set(counts.keys())).toEqual(expected);
    expect(counts.size).toBe(30 * 13);
    expect(claimedHere + claimedThere).toBe(30 * 8);
  });

  it("a claim that fails before it commits leaves its tick due: the next claim fires it once", async () => {
    const workflowId = await createWorkflow();
    const scheduleId = await createSchedule(workflowId, {
      cron: "0 * * * * *",
      overlap: "allow",
      catch_up: "all",
    });
    const [row] = await builder.deps.db
      .select()
      .from(workflowSchedules)
      .where(eq(workflowSchedules.id, scheduleId));
    const tick = row?.nextFireAt ?? new Date(0);
    clock.set(new Date(tick.getTime() + 500));
    // The database refuses the run rows half-way through the claim, as a crash would cut it.
    await builder.deps.db.execute(sql`create function refuse_runs() returns trigger language plpgsql as $$
      begin raise exception 'simulated crash'; end $$`);
    await builder.deps.db.execute(
      sql`create trigger refuse_runs before insert on workflow_runs for each row execute function refuse_runs()`,
    );
    try {
      await expect(claimDueTicks({ ...builder.deps }, { limit: 10 })).rejects.toThrow();
    } finally {
      await builder.deps.db.execute(sql`drop trigger refuse_runs on workflow_runs`);
      await builder.deps.db.execute(sql`drop function refuse_runs`);
    }
    const [after] = await builder.deps.db
      .select()
      .from(workflowSchedules)
      .where(eq(workflowSchedules.id, scheduleId));
    expect(after?.nextFireAt).toEqual(tick);

    await race();
    expect([...(await runsPerTick(workflowId))]).toEqual([[`${scheduleId} ${tick.toISOString()}`, 1]]);
  });

  it("a process that dies after claiming leaves the tick's run on record, resumed by a live process, and the tick is not fired again", async () => {
    const workflowId = await createWorkflow();
    const scheduleId = await createSchedule(workflowId, {
      cron: "0 * * * * *",
      overlap: "allow",
      catch_up: "all",
    });
    const [row] = await builder.deps.db
      .select()
      .from(workflowSchedules)
      .where(eq(workflowSchedules.id, scheduleId));
    const tick = row?.nextFireAt ?? new Date(0);
    clock.set(new Date(tick.getTime() + 100));
    // Claimed, committed, never executed: the claiming process is gone.
    const claim = await claimDueTicks({ ...builder.deps }, { limit: 10 });
    expect(claim.runs.map((run) => run.claimed.scheduledFor)).toEqual([tick]);

    clock.advance(61_000);
    const restarted = createBuilderApp({ ...builder.deps, isSoleProcess: false });
    await restarted.start();
    await restarted.scheduler.stop();
    const scheduledRun = async () =>
      (await builder.deps.db.select().from(workflowRuns).where(eq(workflowRuns.scheduleId, scheduleId)))[0];
    // The takeover resumes the run in the background (docs/workflows.md, "Durability").
    for (let waited = 0; (await scheduledRun())?.status === "running" && waited < 20_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await restarted.stop();
    expect(await scheduledRun()).toMatchObject({ status: "succeeded", scheduledFor: tick, resumes: 1 });
    // The next claim fires the following ticks only.
    await race();
    const counts = await runsPerTick(workflowId);
    expect(counts.get(`${scheduleId} ${tick.toISOString()}`)).toBe(1);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
  });
});
