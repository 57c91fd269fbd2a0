import { describe, expect, it } from "vitest";
import { compileWorkflow } from "./compile-workflow.ts";
import type { NodeExecutors } from "./executors.ts";
import type { ApprovalDecision, RecordedNode, RunResult } from "./run-events.ts";
import { runWorkflow } from "./run-workflow.ts";
import type { WorkflowGraph } from "./schema.ts";
import {
  code,
  edge,
  end,
  fakeExecutors,
  graphOf,
  lineRecorder,
  type PolicyFields,
  start,
  tool,
} from "./test-support.ts";

// Nodes under `requires_approval`: the run pauses there and goes on with a person's decision.

function counting() {
  const calls: { id: string; args: unknown }[] = [];
  const executors: Partial<NodeExecutors> = {
    tool: async ({ node, inputs }) => {
      calls.push({ id: node.id, args: inputs.args });
      return { outputs: { result: inputs.args } };
    },
  };
  return { calls, executors };
}

/** start → before → gate (requires approval) → after → end; gate's policy fields as given. */
function gated(policy: PolicyFields = {}): WorkflowGraph {
  return graphOf(
    [
      start([{ name: "to", type: "string" }]),
      tool("before", { n: 1 }),
      tool("gate", { to: "{{start.to}}", n: "{{before.result.n}}" }, { requires_approval: true, ...policy }),
      tool("after", { sent: "{{gate.result}}" }),
      end("end", { sent: "{{after.result.sent}}" }),
    ],
    [edge("start", "before"), edge("before", "gate"), edge("gate", "after"), edge("after", "end")],
  );
}

/** What a resumed execution keeps: the succeeded (or continued) nodes of an earlier one. */
function recordedOf(result: RunResult): Map<string, RecordedNode> {
  return new Map(
    result.nodes
      .filter((node) => node.outputs !== null && node.status !== "skipped")
      .map((node) => [node.node_id, node]),
  );
}

async function execute(
  graph: WorkflowGraph,
  executors: Partial<NodeExecutors>,
  extra: { recorded?: Map<string, RecordedNode>; approvals?: Map<string, ApprovalDecision> } = {},
) {
  const recorder = lineRecorder();
  const waiting: string[] = [];
  recorder.onNodeWaiting = (event) => {
    waiting.push(event.node_id);
  };
  const result = await runWorkflow({
    workflow: compileWorkflow(graph),
    runId: "run_1",
    inputs: { to: "bob@example.com" },
    executors: fakeExecutors(executors),
    recorder,
    ...extra,
  });
  return { result, lines: recorder.lines, waiting };
}

describe("a node that requires approval", () => {
  it("pauses the run with the resolved request pending, and nothing after it runs", async () => {
    const { calls, executors } = counting();
    const { result, lines, waiting } = await execute(gated(), executors);
    expect(result.status).toBe("waiting");
    expect(result.outputs).toBeNull();
    expect(result.pending).toEqual([
      expect.objectContaining({
        node_id: "gate",
        node_type: "tool",
        input: expect.objectContaining({ tool: "echo", args: { to: "bob@example.com", n: 1 } }),
      }),
    ]);
    expect(calls.map((call) => call.id)).toEqual(["before"]);
    expect(waiting).toEqual(["gate"]);
    expect(lines).not.toContain("node_started gate");
    expect(lines.at(-1)).toBe("run_finished waiting");
  });

  it("approved, runs the node and the rest without running the recorded nodes again", async () => {
    const { calls, executors } = counting();
    const first = await execute(gated(), executors);
    const second = await execute(gated(), executors, {
      recorded: recordedOf(first.result),
      approvals: new Map([["gate", { decision: "approve" }]]),
    });
    expect(second.result.status).toBe("succeeded");
    expect(second.result.outputs).toEqual({ sent: { to: "bob@example.com", n: 1 } });
    expect(calls.map((call) => call.id)).toEqual(["before", "gate", "after"]);
  });

  it("approved with an edited request, sends the edited one", async () => {
    const { calls, executors } = counting();
    const first = await execute(gated(), executors);
    const edited = { tool: "echo", args: { to: "carol@example.com", n: 2 } };
    const second = await execute(gated(), executors, {
      recorded: recordedOf(first.result),
      approvals: new Map([["gate", { decision: "approve", input: edited }]]),
    });
    expect(calls.find((call) => call.id === "gate")?.args).toEqual(edited.args);
    expect(second.result.outputs).toEqual({ sent: edited.args });
    expect(second.result.nodes.find((node) => node.node_id === "gate")?.inputs).toEqual(edited);
  });

  it("rejected, fails the run under on_error fail, without executing the node", async () => {
    const { calls, executors } = counting();
    const first = await execute(gated(), executors);
    const second = await execute(gated(), executors, {
      recorded: recordedOf(first.result),
      approvals: new Map([["gate", { decision: "reject" }]]),
    });
    expect(second.result.status).toBe("failed");
    expect(second.result.error).toMatchObject({ code: "approval_rejected", node_id: "gate" });
    expect(calls.map((call) => call.id)).toEqual(["before"]);
  });

  it("rejected under on_error continue, goes on with the default output and the error", async () => {
    const { executors } = counting();
    const graph = gated({ on_error: "continue", default_output: { result: "skipped" } });
    const first = await execute(graph, executors);
    const second = await execute(graph, executors, {
      recorded: recordedOf(first.result),
      approvals: new Map([["gate", { decision: "reject", message: "Not today." }]]),
    });
    expect(second.result.status).toBe("succeeded");
    expect(second.result.outputs).toEqual({ sent: "skipped" });
    expect(second.result.nodes.find((node) => node.node_id === "gate")).toMatchObject({
      status: "failed",
      continued: true,
      error: { code: "approval_rejected", message: "Not today." },
    });
  });

  it("rejected under on_error branch, takes the error branch with { error }", async () => {
    const graph = graphOf(
      [
        start(),
        tool("gate", { n: 1 }, { requires_approval: true, on_error: "branch" }),
        tool("ok", { v: "{{gate.result}}" }),
        code("handle", { code: "{{gate.error.code}}" }),
        end("end", { ok: "{{ok.result.v}}", handled: "{{handle.result}}" }),
      ],
      [
        edge("start", "gate"),
        edge("gate", "ok"),
        edge("gate", "handle", "error"),
        edge("ok", "end"),
        edge("handle", "end"),
      ],
    );
    const { calls, executors } = counting();
    const first = await execute(graph, executors);
    expect(first.result.status).toBe("waiting");
    const seen: unknown[] = [];
    const second = await execute(
      graph,
      {
        ...executors,
        code: async ({ inputs }) => {
          seen.push(inputs.inputs);
          return { outputs: { result: 1 } };
        },
      },
      { recorded: recordedOf(first.result), approvals: new Map([["gate", { decision: "reject" }]]) },
    );
    expect(second.result.status).toBe("succeeded");
    expect(seen).toEqual([[{ name: "code", value: "approval_rejected" }]]);
    expect(second.result.nodes.find((node) => node.node_id === "ok")?.status).toBe("skipped");
    expect(calls).toEqual([]);
  });

  it("lets independent branches finish before the run ends waiting", async () => {
    const graph = graphOf(
      [
        start(),
        tool("gate", { n: 1 }, { requires_approval: true }),
        tool("side", { n: 2 }),
        end("end", { gate: "{{gate.result}}", side: "{{side.result}}" }),
      ],
      [edge("start", "gate"), edge("start", "side"), edge("gate", "end"), edge("side", "end")],
    );
    const { calls, executors } = counting();
    const { result } = await execute(graph, executors);
    expect(result.status).toBe("waiting");
    expect(calls.map((call) => call.id)).toEqual(["side"]);
    expect(result.nodes.map((node) => [node.node_id, node.status])).toEqual([
      ["start", "succeeded"],
      ["side", "succeeded"],
    ]);
  });

  it("is not pending when another node fails the run meanwhile", async () => {
    const graph = graphOf(
      [
        start(),
        tool("gate", { n: 1 }, { requires_approval: true }),
        code("boom"),
        end("end", { gate: "{{gate.result}}", boom: "{{boom.result}}" }),
      ],
      [edge("start", "gate"), edge("start", "boom"), edge("gate", "end"), edge("boom", "end")],
    );
    const { result, waiting } = await execute(graph, {
      code: async () => {
        throw new Error("broken");
      },
    });
    expect(result.status).toBe("failed");
    expect(result.pending).toEqual([]);
    expect(waiting).toEqual([]);
  });
});
