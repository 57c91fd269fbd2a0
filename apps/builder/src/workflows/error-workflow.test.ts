import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createWorkflow, edge, node, runWorkflow } from "../../test/workflow-support.ts";

// A workflow's `error_workflow_id`: when one of its runs fails, that workflow runs with the failure.

let builder: TestBuilder;
let alice: string;
let bob: string;

beforeAll(async () => {
  builder = await startTestBuilder();
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});

afterAll(() => builder.stop());

/**
 * An error workflow: it takes the failure's inputs and outputs them; with `fails`, a Code node (which
 * fails here: the test builder has no sandbox) fails it.
 */
function errorHandlerGraph(fails = false) {
  const start = node("start", "start", {
    inputs: [
      { name: "run_id", type: "string", required: true },
      { name: "workflow_id", type: "string", required: true },
      { name: "error", type: "object", required: true },
      { name: "failed_node", type: "object" },
    ],
  });
  const done = node("done", "end", {
    outputs: [
      { name: "run_id", value: "{{start.run_id}}" },
      { name: "workflow_id", value: "{{start.workflow_id}}" },
      { name: "code", value: "{{start.error.code}}" },
      { name: "failed_node", value: "{{start.failed_node}}" },
    ],
  });
  if (!fails) return { nodes: [start, done], edges: [edge("start", "done")] };
  const broken = node("broken", "code", {
    language: "javascript",
    code: "function main() { return { x: 1 }; }",
    inputs: [],
    outputs: [{ name: "x", type: "number" }],
  });
  return { nodes: [start, broken, done], edges: [edge("start", "broken"), edge("broken", "done")] };
}

/** start → broken (a Code node, failing without a sandbox) → done. */
const failingGraph = {
  nodes: [
    node("start", "start", { inputs: [] }),
    node("broken", "code", {
      title: "Broken step",
      language: "javascript",
      code: "function main() { throw new Error('boom'); }",
      inputs: [],
      outputs: [{ name: "x", type: "number" }],
    }),
    node("done", "end", { outputs: [{ name: "x", value: "{{broken.x}}" }] }),
  ],
  edges: [edge("start", "broken"), edge("broken", "done")],
};

const patch = (id: string, body: unknown, cookie = alice) =>
  builder.request(`/api/workflows/${id}`, { method: "PATCH", cookie, json: body });

interface StoredRun {
  id: string;
  workflow_id: string;
  status: string;
  trigger: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
}

describe("an error workflow", () => {
  it("runs with { run_id, workflow_id, error, failed_node } when a run fails (trigger error_workflow)", async () => {
    const handler = await createWorkflow(builder, alice, errorHandlerGraph());
    const main = await createWorkflow(builder, alice, failingGraph);
    const set = await patch(main, { error_workflow_id: handler });
    expect(set.status, await set.clone().text()).toBe(200);
    expect(await set.json()).toMatchObject({ error_workflow_id: handler });

    const failed = await runWorkflow(builder, alice, main);
    expect(failed.status).toBe("failed");
    const started = await builder.runner.errorWorkflowsSettled();
    expect(started).toHaveLength(1);
    const run = (await (
      await builder.request(`/api/runs/${started[0]}`, { cookie: alice })
    ).json()) as StoredRun;
    expect(run).toMatchObject({ workflow_id: handler, trigger: "error_workflow", status: "succeeded" });
    expect(run.inputs).toEqual({
      run_id: failed.id,
      workflow_id: main,
      error: { code: failed.error?.code, message: failed.error?.message, node_id: "broken" },
      failed_node: { id: "broken", type: "code", title: "Broken step" },
    });
    expect(run.outputs).toMatchObject({ run_id: failed.id, workflow_id: main, code: failed.error?.code });
  });

  it("does not run for a run that succeeds", async () => {
    const handler = await createWorkflow(builder, alice, errorHandlerGraph());
    const fine = await createWorkflow(builder, alice, {
      nodes: [node("start", "start", { inputs: [] }), node("done", "end", { outputs: [] })],
      edges: [edge("start", "done")],
    });
    expect((await patch(fine, { error_workflow_id: handler })).status).toBe(200);
    expect((await runWorkflow(builder, alice, fine)).status).toBe("succeeded");
    expect(await builder.runner.errorWorkflowsSettled()).toEqual([]);
  });

  it("does not loop: an error workflow's own failure starts no other, even when it names one", async () => {
    const handler = await createWorkflow(builder, alice, errorHandlerGraph(true));
    const main = await createWorkflow(builder, alice, failingGraph);
    expect((await patch(main, { error_workflow_id: handler })).status).toBe(200);
    // The handler's own error workflow is the failing main workflow: a loop if followed.
    expect((await patch(handler, { error_workflow_id: main })).status).toBe(200);

    await runWorkflow(builder, alice, main);
    const started = await builder.runner.errorWorkflowsSettled();
    expect(started).toHaveLength(1);
    const run = (await (
      await builder.request(`/api/runs/${started[0]}`, { cookie: alice })
    ).json()) as StoredRun;
    expect(run).toMatchObject({ workflow_id: handler, trigger: "error_workflow", status: "failed" });
    expect(await builder.runner.errorWorkflowsSettled()).toEqual([]);
    const mainRuns = (await (
      await builder.request(`/api/workflows/${main}/runs`, { cookie: alice })
    ).json()) as {
      data: StoredRun[];
    };
    expect(mainRuns.data).toHaveLength(1);
  });

  it("is validated: another workflow of the same workspace, not the workflow itself; null clears it", async () => {
    const own = await createWorkflow(builder, alice, failingGraph);
    const other = await createWorkflow(builder, bob, errorHandlerGraph());
    const itself = await patch(own, { error_workflow_id: own });
    expect(itself.status).toBe(422);
    expect(await itself.json()).toMatchObject({
      error: { code: "invalid_error_workflow", param: "error_workflow_id" },
    });
    const foreign = await patch(own, { error_workflow_id: other });
    expect(foreign.status).toBe(422);
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: { name: "x", graph: failingGraph, error_workflow_id: "wf_missing" },
    });
    expect(created.status).toBe(422);
    const handler = await createWorkflow(builder, alice, errorHandlerGraph());
    expect(await (await patch(own, { error_workflow_id: handler })).json()).toMatchObject({
      error_workflow_id: handler,
    });
    expect(await (await patch(own, { error_workflow_id: null })).json()).toMatchObject({
      error_workflow_id: null,
    });
  });
});
