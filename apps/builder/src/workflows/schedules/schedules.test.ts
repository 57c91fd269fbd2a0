import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { manualClock } from "@app/core";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../../test/harness.ts";
import { edge, node } from "../../../test/workflow-support.ts";
import { workflows } from "../schema.ts";

// The clock starts at 10:00:10 UTC on a Monday; tests move it forward and claim ticks with
// `scheduler.runDue()`, the background loop stopped so that only they claim.
const clock = manualClock(new Date("2026-06-01T10:00:10.000Z"));
let builder: TestBuilder;
let alice: string;
let bob: string;
let holder: Server;
let holdUrl: string;
const held: (() => void)[] = [];

beforeAll(async () => {
  holder = createServer((_request, response) => {
    held.push(() => response.end('{"released":true}'));
  });
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  holdUrl = `http://127.0.0.1:${(holder.address() as AddressInfo).port}/hold`;
  builder = await startTestBuilder({ clock, env: { ALLOW_PRIVATE_URLS: "1" } });
  await builder.scheduler.stop();
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
// Each test's workflows go when it ends, and their schedules with them: a later test that moves the
// clock fires only its own.
const created: string[] = [];
afterEach(async () => {
  for (const id of created.splice(0))
    await builder.request(`/api/workflows/${id}`, { method: "DELETE", cookie: alice });
});
afterAll(async () => {
  for (const release of held.splice(0)) release();
  await builder?.stop();
  await new Promise((resolve) => holder?.close(resolve));
});

interface ScheduleJson {
  id: string;
  workflow_id: string;
  cron: string;
  timezone: string;
  inputs: Record<string, unknown>;
  overlap: string;
  catch_up: string;
  enabled: boolean;
  next_runs: string[];
  queued_ticks: number;
  skipped_ticks: number;
  last_skipped_for: string | null;
  last_run: { id: string; status: string; scheduled_for: string | null } | null;
}

interface RunJson {
  id: string;
  status: string;
  trigger: string;
  schedule_id: string | null;
  scheduled_for: string | null;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
}

const greetGraph = {
  nodes: [
    node("start", "start", { inputs: [{ name: "who", type: "string", required: true }] }),
    node("done", "end", { outputs: [{ name: "greeting", value: "hello {{start.who}}" }] }),
  ],
  edges: [edge("start", "done")],
};

/** start → an HTTP call the test answers when it likes → end: a run that stays `running` until then. */
const heldGraph = {
  nodes: [
    node("start", "start", { inputs: [] }),
    node("call", "http", { method: "GET", url: "" }),
    node("done", "end", { outputs: [{ name: "ok", value: "{{call.status}}" }] }),
  ],
  edges: [edge("start", "call"), edge("call", "done")],
};

async function createWorkflow(cookie: string, graph: unknown): Promise<string> {
  const response = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name: "scheduled", graph },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  const { id } = (await response.json()) as { id: string };
  if (cookie === alice) created.push(id);
  return id;
}

async function createSchedule(cookie: string, workflowId: string, body: Record<string, unknown>) {
  const response = await builder.request(`/api/workflows/${workflowId}/schedules`, {
    method: "POST",
    cookie,
    json: body,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as ScheduleJson;
}

async function getSchedule(id: string, cookie = alice): Promise<ScheduleJson> {
  const response = await builder.request(`/api/schedules/${id}`, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as ScheduleJson;
}

async function runsOf(workflowId: string): Promise<RunJson[]> {
  const response = await builder.request(`/api/workflows/${workflowId}/runs?limit=100`, { cookie: alice });
  return ((await response.json()) as { data: RunJson[] }).data.sort((a, b) =>
    (a.scheduled_for ?? "").localeCompare(b.scheduled_for ?? ""),
  );
}

/** Moves the clock and claims what is due, then waits for the runs that started to end. */
async function advanceAndFire(ms: number): Promise<number> {
  clock.advance(ms);
  const started = await builder.scheduler.runDue();
  await builder.scheduler.settled();
  return started;
}

describe("schedules over HTTP", () => {
  it("creates a schedule and answers its next five ticks in its zone, across the spring-forward gap", async () => {
    const saved = clock.now();
    clock.set(new Date("2026-03-28T12:00:00Z"));
    try {
      const workflowId = await createWorkflow(alice, greetGraph);
      const created = await createSchedule(alice, workflowId, {
        cron: "30 2 * * *",
        timezone: "europe/berlin",
        inputs: { who: "Ada" },
      });
      expect(created).toMatchObject({
        id: expect.stringMatching(/^sch_/),
        workflow_id: workflowId,
        timezone: "Europe/Berlin",
        overlap: "skip",
        catch_up: "latest",
        enabled: true,
        last_run: null,
        skipped_ticks: 0,
      });
      expect(created.next_runs).toEqual([
        "2026-03-29T03:00:00+02:00",
        "2026-03-30T02:30:00+02:00",
        "2026-03-31T02:30:00+02:00",
        "2026-04-01T02:30:00+02:00",
        "2026-04-02T02:30:00+02:00",
      ]);
      expect(await getSchedule(created.id)).toEqual(created);

      const paused = await builder.request(`/api/schedules/${created.id}`, {
        method: "PATCH",
        cookie: alice,
        json: { enabled: false },
      });
      expect(await paused.json()).toMatchObject({ enabled: false, next_runs: [] });
      const changed = await builder.request(`/api/schedules/${created.id}`, {
        method: "PATCH",
        cookie: alice,
        json: { enabled: true, cron: "0 9 * * 1-5", timezone: "Asia/Jakarta" },
      });
      expect(((await changed.json()) as ScheduleJson).next_runs.slice(0, 2)).toEqual([
        "2026-03-30T09:00:00+07:00",
        "2026-03-31T09:00:00+07:00",
      ]);

      const removed = await builder.request(`/api/schedules/${created.id}`, {
        method: "DELETE",
        cookie: alice,
      });
      expect(removed.status).toBe(204);
      expect((await builder.request(`/api/schedules/${created.id}`, { cookie: alice })).status).toBe(404);
    } finally {
      clock.set(saved);
    }
  });

  it("lists a workflow's schedules newest first, a page at a time", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const ids: string[] = [];
    for (const cron of ["0 * * * *", "0 0 * * *", "*/10 * * * * *"]) {
      // Ids order by their creation's millisecond.
      clock.advance(1);
      ids.push((await createSchedule(alice, workflowId, { cron, inputs: { who: "x" } })).id);
    }
    const first = await builder.request(`/api/workflows/${workflowId}/schedules?limit=2`, { cookie: alice });
    const page = (await first.json()) as { data: ScheduleJson[]; has_more: boolean; next_cursor: string };
    expect(page.data.map((s) => s.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    const second = await builder.request(
      `/api/workflows/${workflowId}/schedules?limit=2&cursor=${page.next_cursor}`,
      { cookie: alice },
    );
    expect(((await second.json()) as { data: ScheduleJson[] }).data.map((s) => s.id)).toEqual([ids[0]]);
  });

  it("answers 422 naming the field for a bad cron, an unknown time zone or a misspelt field, and invalid_inputs for inputs the Start node refuses", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const post = (json: unknown) =>
      builder.request(`/api/workflows/${workflowId}/schedules`, { method: "POST", cookie: alice, json });
    const errorOf = async (response: Response) => {
      expect(response.status).toBe(422);
      return ((await response.json()) as { error: { code: string; param?: string; message: string } }).error;
    };
    expect(await errorOf(await post({ cron: "61 * * * *", inputs: { who: "x" } }))).toMatchObject({
      code: "validation_failed",
      param: "cron",
      message: expect.stringContaining("minute: 61"),
    });
    expect(await errorOf(await post({ cron: "* * * * * * *", inputs: { who: "x" } }))).toMatchObject({
      param: "cron",
    });
    expect(await errorOf(await post({ cron: "0 0 30 2 *", inputs: { who: "x" } }))).toMatchObject({
      param: "cron",
      message: expect.stringContaining("never matches"),
    });
    expect(
      await errorOf(await post({ cron: "* * * * *", timezone: "Mars/Olympus_Mons", inputs: { who: "x" } })),
    ).toMatchObject({ code: "validation_failed", param: "timezone" });
    expect(
      await errorOf(await post({ cron: "* * * * *", catchup: "all", inputs: { who: "x" } })),
    ).toMatchObject({
      code: "validation_failed",
    });
    expect(await errorOf(await post({ cron: "* * * * *", inputs: {} }))).toMatchObject({
      code: "invalid_inputs",
      param: "inputs.who",
    });

    const created = await createSchedule(alice, workflowId, { cron: "* * * * *", inputs: { who: "x" } });
    const patch = await builder.request(`/api/schedules/${created.id}`, {
      method: "PATCH",
      cookie: alice,
      json: { timezone: "Nowhere/Special" },
    });
    expect(await errorOf(patch)).toMatchObject({ param: "timezone" });
  });

  it("treats another workspace's schedule and workflow as not found", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const created = await createSchedule(alice, workflowId, { cron: "0 * * * *", inputs: { who: "x" } });
    const asBob = (path: string, init: { method?: string; json?: unknown } = {}) =>
      builder.request(path, { ...init, cookie: bob });
    expect((await asBob(`/api/schedules/${created.id}`)).status).toBe(404);
    expect(
      (await asBob(`/api/schedules/${created.id}`, { method: "PATCH", json: { enabled: false } })).status,
    ).toBe(404);
    expect((await asBob(`/api/schedules/${created.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await asBob(`/api/workflows/${workflowId}/schedules`)).status).toBe(404);
    expect(
      (await asBob(`/api/workflows/${workflowId}/schedules`, { method: "POST", json: { cron: "* * * * *" } }))
        .status,
    ).toBe(404);
    expect((await getSchedule(created.id)).enabled).toBe(true);
  });

  it("deletes a workflow's schedules with it", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const created = await createSchedule(alice, workflowId, { cron: "* * * * *", inputs: { who: "x" } });
    expect(
      (await builder.request(`/api/workflows/${workflowId}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect((await builder.request(`/api/schedules/${created.id}`, { cookie: alice })).status).toBe(404);
  });
});

describe("firing", () => {
  it("a due tick runs once, recorded with trigger, schedule_id and scheduled_for, and emits the run's webhook event", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const schedule = await createSchedule(alice, workflowId, { cron: "0 * * * *", inputs: { who: "Ada" } });
    const tick = new Date(schedule.next_runs[0] ?? "");
    expect(await advanceAndFire(tick.getTime() - clock.now().getTime() - 1)).toBe(0);
    expect(await advanceAndFire(1)).toBe(1);
    expect(await advanceAndFire(0)).toBe(0);

    const [run, ...others] = await runsOf(workflowId);
    expect(others).toEqual([]);
    expect(run).toMatchObject({
      status: "succeeded",
      trigger: "schedule",
      schedule_id: schedule.id,
      scheduled_for: tick.toISOString(),
      inputs: { who: "Ada" },
      outputs: { greeting: "hello Ada" },
    });
    const stored = (await (
      await builder.request(`/api/runs/${run?.id}`, { cookie: alice })
    ).json()) as RunJson;
    expect(stored).toMatchObject({ trigger: "schedule", schedule_id: schedule.id });
    expect((await getSchedule(schedule.id)).last_run).toEqual({
      id: run?.id,
      status: "succeeded",
      scheduled_for: tick.toISOString(),
    });

    const events = await builder.request("/api/events?type=workflow.run.succeeded&limit=100", {
      cookie: alice,
    });
    const published = ((await events.json()) as { data: { data: { object: RunJson } }[] }).data.map(
      (event) => event.data.object,
    );
    expect(published.find((data) => data.id === run?.id)).toMatchObject({
      trigger: "schedule",
      schedule_id: schedule.id,
      scheduled_for: tick.toISOString(),
    });
  });

  it("runs the newest published version when the workflow has one, and records it; the draft before", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const schedule = await createSchedule(alice, workflowId, { cron: "* * * * *", inputs: { who: "Ada" } });
    clock.set(new Date(schedule.next_runs[0] ?? ""));
    expect(await advanceAndFire(0)).toBe(1);
    const published = await builder.request(`/api/workflows/${workflowId}/versions`, {
      method: "POST",
      cookie: alice,
      json: { notes: "v1" },
    });
    expect(published.status, await published.clone().text()).toBe(201);
    // The draft moves on; ticks keep running what was published.
    const draft = structuredClone(greetGraph);
    (draft.nodes[1] as unknown as { data: { outputs: { value: string }[] } }).data.outputs = [
      { name: "greeting", value: "draft {{start.who}}" } as never,
    ];
    const patched = await builder.request(`/api/workflows/${workflowId}`, {
      method: "PATCH",
      cookie: alice,
      json: { graph: draft },
    });
    expect(patched.status).toBe(200);
    expect(await advanceAndFire(60_000)).toBe(1);
    const runs = (await runsOf(workflowId)) as (RunJson & { version: number | null })[];
    expect(runs.map((run) => [run.version, run.outputs])).toEqual([
      [null, { greeting: "hello Ada" }],
      [1, { greeting: "hello Ada" }],
    ]);
  });

  it("a paused schedule fires nothing, and resuming does not catch up the paused time", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const schedule = await createSchedule(alice, workflowId, {
      cron: "* * * * *",
      inputs: { who: "x" },
      catch_up: "all",
      enabled: false,
    });
    expect(await advanceAndFire(10 * 60_000)).toBe(0);
    await builder.request(`/api/schedules/${schedule.id}`, {
      method: "PATCH",
      cookie: alice,
      json: { enabled: true },
    });
    expect(await advanceAndFire(60_000)).toBe(1);
    expect(await runsOf(workflowId)).toHaveLength(1);
  });

  it("after an outage of 2.5 hours an hourly schedule fires: none nothing, latest the last tick once, all each tick", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const byPolicy: Record<string, ScheduleJson> = {};
    for (const catchUp of ["none", "latest", "all"]) {
      byPolicy[catchUp] = await createSchedule(alice, workflowId, {
        cron: "0 * * * *",
        inputs: { who: catchUp },
        catch_up: catchUp,
        overlap: "allow",
      });
    }
    const first = new Date(byPolicy.none?.next_runs[0] ?? "");
    // Nothing ran from before the first tick until half an hour after the third.
    clock.set(new Date(first.getTime() + 2.5 * 3_600_000));
    await builder.scheduler.runDue();
    await builder.scheduler.settled();

    const runs = await runsOf(workflowId);
    const ticksOf = (catchUp: string) =>
      runs.filter((run) => run.schedule_id === byPolicy[catchUp]?.id).map((run) => run.scheduled_for);
    const hour = (n: number) => new Date(first.getTime() + n * 3_600_000).toISOString();
    expect(ticksOf("none")).toEqual([]);
    expect(ticksOf("latest")).toEqual([hour(2)]);
    expect(ticksOf("all")).toEqual([hour(0), hour(1), hour(2)]);
    // Each goes on from the next tick after now.
    for (const schedule of Object.values(byPolicy)) {
      expect((await getSchedule(schedule.id)).next_runs[0]).toBe(
        new Date(first.getTime() + 3 * 3_600_000).toISOString().replace(".000Z", "+00:00"),
      );
    }
  });

  it("overlap: skip drops a tick while the previous run goes, queue starts it when the run ends, allow runs both", async () => {
    const graph = structuredClone(heldGraph);
    (graph.nodes[1] as unknown as { data: { url: string } }).data.url = holdUrl;
    const workflowId = await createWorkflow(alice, graph);
    const byPolicy: Record<string, ScheduleJson> = {};
    for (const overlap of ["skip", "queue", "allow"]) {
      byPolicy[overlap] = await createSchedule(alice, workflowId, {
        cron: "* * * * *",
        overlap,
        catch_up: "all",
      });
    }
    const firstTick = new Date(byPolicy.skip?.next_runs[0] ?? "");
    clock.set(firstTick);
    expect(await builder.scheduler.runDue()).toBe(3);
    await expect.poll(() => held.length).toBe(3);

    // The second tick comes while all three first runs are held.
    clock.advance(60_000);
    expect(await builder.scheduler.runDue()).toBe(1);
    await expect.poll(() => held.length).toBe(4);
    expect(await getSchedule(byPolicy.skip?.id ?? "")).toMatchObject({
      skipped_ticks: 1,
      last_skipped_for: new Date(firstTick.getTime() + 60_000).toISOString(),
    });
    expect((await getSchedule(byPolicy.queue?.id ?? "")).queued_ticks).toBe(1);

    for (const release of held.splice(0)) release();
    await builder.scheduler.settled();
    // The queued tick starts once its schedule's run has ended.
    expect(await builder.scheduler.runDue()).toBe(1);
    await expect.poll(() => held.length).toBe(1);
    for (const release of held.splice(0)) release();
    await builder.scheduler.settled();

    const runs = await runsOf(workflowId);
    const ticksOf = (overlap: string) =>
      runs.filter((run) => run.schedule_id === byPolicy[overlap]?.id).map((run) => run.scheduled_for);
    const minute = (n: number) => new Date(firstTick.getTime() + n * 60_000).toISOString();
    expect(ticksOf("skip")).toEqual([minute(0)]);
    expect(ticksOf("queue")).toEqual([minute(0), minute(1)]);
    expect(ticksOf("allow")).toEqual([minute(0), minute(1)]);
    expect(runs.every((run) => run.status === "succeeded")).toBe(true);
    expect((await getSchedule(byPolicy.queue?.id ?? "")).queued_ticks).toBe(0);
  });

  it("a run whose graph no longer compiles is recorded failed with the reason", async () => {
    const workflowId = await createWorkflow(alice, greetGraph);
    const schedule = await createSchedule(alice, workflowId, { cron: "* * * * *", inputs: { who: "x" } });
    // Saved graphs are validated; one broken since (a tool gone) is stored as it is.
    const broken = structuredClone(greetGraph);
    broken.edges = [];
    await builder.deps.db
      .update(workflows)
      .set({ graph: broken as never, updatedAt: new Date(clock.now().getTime() + 1) })
      .where(eq(workflows.id, workflowId));
    clock.set(new Date(schedule.next_runs[0] ?? ""));
    expect(await advanceAndFire(0)).toBe(1);
    const [run] = await runsOf(workflowId);
    expect(run).toMatchObject({ status: "failed", trigger: "schedule", schedule_id: schedule.id });
    expect((run as unknown as { error: { code: string } }).error.code).toBe("invalid_graph");
  });
});
