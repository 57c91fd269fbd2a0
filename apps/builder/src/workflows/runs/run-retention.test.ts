import { newId } from "@app/core";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../../test/harness.ts";
import { createWorkflow, edge, node, runWorkflow } from "../../../test/workflow-support.ts";
import { type RunRow, workflowNodeRuns, workflowRuns, workflows } from "../schema.ts";

const DAY = 86_400_000;
const graph = {
  nodes: [node("start", "start", { inputs: [] }), node("done", "end", { outputs: [] })],
  edges: [edge("start", "done")],
};

let builder: TestBuilder;
let cookie: string;

beforeAll(async () => {
  builder = await startTestBuilder({
    env: { RUN_RETENTION_DAYS: "30", RUN_RETENTION_PER_WORKFLOW: "3" },
  });
  cookie = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await builder?.stop();
});

/** Records runs straight in the database: months of history in a moment. */
async function recordRuns(
  workflowId: string,
  runs: { daysAgo: number; status: RunRow["status"] }[],
): Promise<string[]> {
  const [workflow] = await builder.deps.db
    .select({ workspaceId: workflows.workspaceId })
    .from(workflows)
    .where(eq(workflows.id, workflowId));
  const workspaceId = workflow?.workspaceId ?? "";
  const now = builder.deps.clock.now().getTime();
  const rows = runs.map(({ daysAgo, status }, index) => {
    // Ids grow with the start time, as newId makes them.
    const startedAt = new Date(now - daysAgo * DAY + index);
    return {
      id: newId("run", startedAt.getTime()),
      workspaceId,
      workflowId,
      status,
      trigger: "api" as const,
      graph: graph as unknown as RunRow["graph"],
      inputs: {},
      startedAt,
      finishedAt: status === "running" ? null : startedAt,
      heartbeatAt: startedAt,
    };
  });
  await builder.deps.db.insert(workflowRuns).values(rows);
  await builder.deps.db.insert(workflowNodeRuns).values(
    rows.map((row) => ({
      runId: row.id,
      nodeId: "start",
      nodeType: "start",
      status: "succeeded" as const,
    })),
  );
  return rows.map((row) => row.id);
}

async function remaining(ids: string[]): Promise<string[]> {
  const rows = await builder.deps.db
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .where(inArray(workflowRuns.id, ids));
  return rows.map((row) => row.id).sort();
}

describe("run retention", () => {
  it("deletes finished runs older than RUN_RETENTION_DAYS with their node runs, and keeps running ones", async () => {
    const workflowId = await createWorkflow(builder, cookie, graph);
    const [oldSucceeded, oldFailed, oldCancelled, oldRunning, recent] = await recordRuns(workflowId, [
      { daysAgo: 45, status: "succeeded" },
      { daysAgo: 40, status: "failed" },
      { daysAgo: 31, status: "cancelled" },
      { daysAgo: 50, status: "running" },
      { daysAgo: 10, status: "succeeded" },
    ]);
    const all = [oldSucceeded, oldFailed, oldCancelled, oldRunning, recent] as string[];

    expect(await builder.runRetention.pruneNow()).toBe(3);

    expect(await remaining(all)).toEqual([oldRunning, recent].sort());
    const nodeRuns = await builder.deps.db
      .select({ runId: workflowNodeRuns.runId })
      .from(workflowNodeRuns)
      .where(inArray(workflowNodeRuns.runId, all));
    expect(nodeRuns.map((row) => row.runId).sort()).toEqual([oldRunning, recent].sort());
    // What is gone is gone from the API too.
    const gone = await builder.request(`/api/runs/${oldSucceeded}`, { cookie });
    expect(gone.status).toBe(404);
  });

  it("keeps each workflow's newest RUN_RETENTION_PER_WORKFLOW finished runs, not counting running ones", async () => {
    const crowded = await createWorkflow(builder, cookie, graph);
    const quiet = await createWorkflow(builder, cookie, graph);
    const crowdedRuns = await recordRuns(crowded, [
      { daysAgo: 6, status: "succeeded" },
      { daysAgo: 5, status: "failed" },
      { daysAgo: 4, status: "running" },
      { daysAgo: 3, status: "succeeded" },
      { daysAgo: 2, status: "succeeded" },
      { daysAgo: 1, status: "failed" },
    ]);
    const quietRuns = await recordRuns(quiet, [
      { daysAgo: 2, status: "succeeded" },
      { daysAgo: 1, status: "succeeded" },
    ]);

    expect(await builder.runRetention.pruneNow()).toBe(2);

    const [, , running, third, second, newest] = crowdedRuns as string[];
    expect(await remaining(crowdedRuns)).toEqual([running, third, second, newest].sort());
    expect(await remaining(quietRuns)).toEqual([...quietRuns].sort());
  });

  it("prunes a backlog larger than one statement's batch in several rounds", async () => {
    const workflowId = await createWorkflow(builder, cookie, graph);
    await recordRuns(
      workflowId,
      Array.from({ length: 1_203 }, () => ({ daysAgo: 60, status: "succeeded" as const })),
    );

    expect(await builder.runRetention.pruneNow()).toBe(1_203);

    const left = await builder.deps.db
      .select({ id: workflowRuns.id })
      .from(workflowRuns)
      .where(eq(workflowRuns.workflowId, workflowId));
    expect(left).toEqual([]);
  });
});

describe("run retention turned off", () => {
  it("keeps every run when both limits are 0", async () => {
    const keeper = await startTestBuilder({
      env: { RUN_RETENTION_DAYS: "0", RUN_RETENTION_PER_WORKFLOW: "0" },
    });
    try {
      const { cookie: own } = await keeper.signUp();
      const workflowId = await createWorkflow(keeper, own, graph);
      const { id } = await runWorkflow(keeper, own, workflowId);
      await keeper.deps.db
        .update(workflowRuns)
        .set({ startedAt: new Date(Date.now() - 10 * 365 * DAY) })
        .where(eq(workflowRuns.id, id));

      expect(await keeper.runRetention.pruneNow()).toBe(0);
      expect((await keeper.request(`/api/runs/${id}`, { cookie: own })).status).toBe(200);
    } finally {
      await keeper.stop();
    }
  });
});
