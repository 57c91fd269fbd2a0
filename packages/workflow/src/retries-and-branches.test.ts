import { manualClock } from "@app/core";
import { describe, expect, it } from "vitest";
import { compileWorkflow } from "./compile-workflow.ts";
import type { NodeExecutors } from "./executors.ts";
import { NodeExecutionError } from "./node-error.ts";
import { parseRetryAfter, retryDelayMs } from "./retry.ts";
import type { RecordedNode } from "./run-events.ts";
import { type RunWorkflowOptions, runWorkflow } from "./run-workflow.ts";
import type { WorkflowGraph } from "./schema.ts";
import { code, edge, end, fakeExecutors, graphOf, lineRecorder, start, tool } from "./test-support.ts";
import { validateGraph } from "./validate-graph.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");

/** A manual clock and a sleep that moves it, so backoff is measured without waiting. */
function fakeTime() {
  const clock = manualClock(T0);
  const delays: number[] = [];
  const sleep = async (ms: number, signal: AbortSignal) => {
    if (signal.aborted) throw signal.reason;
    delays.push(ms);
    clock.advance(ms);
  };
  const offsets = (dates: Date[]) => dates.map((date) => date.getTime() - T0.getTime());
  return { clock, delays, sleep, offsets };
}

function run(
  graph: WorkflowGraph,
  options: Partial<Omit<RunWorkflowOptions, "workflow" | "executors">> & {
    executors?: Partial<NodeExecutors>;
  } = {},
) {
  return runWorkflow({
    runId: "run_1",
    inputs: {},
    ...options,
    workflow: compileWorkflow(graph),
    executors: fakeExecutors(options.executors),
  });
}

/** A code executor that fails `failures` times (with `retryAfterMs` when given), then answers 1. */
function flaky(failures: number, retryAfterMs?: number) {
  const calls: { attempt: number; maxAttempts: number }[] = [];
  const executor: NodeExecutors["code"] = async ({ attempt, maxAttempts }) => {
    calls.push({ attempt, maxAttempts });
    if (calls.length <= failures) {
      throw new NodeExecutionError("upstream_unavailable", `failure ${calls.length}`, {
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    return { outputs: { result: 1 } };
  };
  return { calls, executor };
}

const chain = (retry: Parameters<typeof code>[2]) =>
  graphOf(
    [start(), code("call", {}, retry), end("end", { value: "{{call.result}}" })],
    [edge("start", "call"), edge("call", "end")],
  );

describe("retries", () => {
  it("a node that always fails is tried max_attempts times, 100, 200, 400 ms apart (exponential)", async () => {
    const time = fakeTime();
    const { calls, executor } = flaky(99);
    const result = await run(
      chain({ retry: { max_attempts: 4, backoff: "exponential", initial_ms: 100, max_ms: 10_000 } }),
      { clock: time.clock, sleep: time.sleep, executors: { code: executor } },
    );
    expect(calls).toEqual([1, 2, 3, 4].map((attempt) => ({ attempt, maxAttempts: 4 })));
    expect(time.delays).toEqual([100, 200, 400]);
    expect(result).toMatchObject({
      status: "failed",
      error: { code: "upstream_unavailable", node_id: "call" },
    });
    const attempts = result.nodes.find((node) => node.node_id === "call")?.attempts ?? [];
    expect(attempts.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4]);
    expect(time.offsets(attempts.map((entry) => entry.started_at))).toEqual([0, 100, 300, 700]);
    expect(attempts.map((entry) => entry.error?.message)).toEqual([
      "failure 1",
      "failure 2",
      "failure 3",
      "failure 4",
    ]);
  });

  it("fixed backoff waits initial_ms each time, capped by max_ms, and the run goes on after a late success", async () => {
    const time = fakeTime();
    const { calls, executor } = flaky(2);
    const recorder = lineRecorder();
    const result = await run(
      chain({ retry: { max_attempts: 5, backoff: "fixed", initial_ms: 5_000, max_ms: 3_000 } }),
      { clock: time.clock, sleep: time.sleep, recorder, executors: { code: executor } },
    );
    expect(calls).toHaveLength(3);
    expect(time.delays).toEqual([3_000, 3_000]);
    expect(result).toMatchObject({ status: "succeeded", outputs: { value: 1 } });
    const record = result.nodes.find((node) => node.node_id === "call");
    expect(record?.attempts?.map((entry) => [entry.attempt, entry.error?.code ?? null])).toEqual([
      [1, "upstream_unavailable"],
      [2, "upstream_unavailable"],
      [3, null],
    ]);
    // One node_started and one node_finished however many attempts.
    expect(recorder.lines.filter((line) => line.endsWith(" call"))).toEqual([
      "node_started call",
      "node_finished call",
    ]);
  });

  it("honours a Retry-After the executor reports, capped by max_ms", async () => {
    const time = fakeTime();
    const honoured = flaky(1, 2_000);
    await run(chain({ retry: { max_attempts: 3, initial_ms: 10, max_ms: 60_000 } }), {
      ...time,
      executors: { code: honoured.executor },
    });
    expect(time.delays).toEqual([2_000]);

    const capped = fakeTime();
    const greedy = flaky(1, 120_000);
    await run(chain({ retry: { max_attempts: 3, initial_ms: 10, max_ms: 30_000 } }), {
      ...capped,
      executors: { code: greedy.executor },
    });
    expect(capped.delays).toEqual([30_000]);
  });

  it("a node without retry is tried once and records no attempts", async () => {
    const { calls, executor } = flaky(1);
    const result = await run(chain({}), { executors: { code: executor } });
    expect(calls).toEqual([{ attempt: 1, maxAttempts: 1 }]);
    expect(result.nodes.find((node) => node.node_id === "call")?.attempts).toBeNull();
  });

  it("cancelling the run during a wait ends it cancelled without another attempt", async () => {
    const controller = new AbortController();
    const { calls, executor } = flaky(99);
    const result = await run(chain({ retry: { max_attempts: 5, initial_ms: 60_000 } }), {
      signal: controller.signal,
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          controller.abort();
        }),
      executors: { code: executor },
    });
    expect(calls).toHaveLength(1);
    expect(result).toMatchObject({ status: "cancelled", error: { code: "run_cancelled" } });
  });

  it("times out each attempt on its own under timeout_ms", async () => {
    const time = fakeTime();
    let calls = 0;
    const result = await run(chain({ timeout_ms: 10, retry: { max_attempts: 2, initial_ms: 0 } }), {
      sleep: time.sleep,
      executors: {
        code: () => {
          calls += 1;
          return new Promise(() => {});
        },
      },
    });
    expect(calls).toBe(2);
    expect(result.error).toMatchObject({ code: "node_timeout" });
  });

  it("computes delays and reads Retry-After as seconds or an HTTP date", () => {
    const policy = { max_attempts: 5, backoff: "exponential" as const, initial_ms: 100, max_ms: 1_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
    expect(retryDelayMs(policy, 1, 700)).toBe(700);
    expect(parseRetryAfter("2", T0)).toBe(2_000);
    expect(parseRetryAfter(new Date(T0.getTime() + 5_000).toUTCString(), T0)).toBe(5_000);
    expect(parseRetryAfter("soon", T0)).toBeUndefined();
    expect(parseRetryAfter(null, T0)).toBeUndefined();
  });
});

describe("error branches", () => {
  const branching = () =>
    graphOf(
      [
        start(),
        code("call", {}, { on_error: "branch" }),
        tool("ok", { value: "{{call.result}}" }),
        tool("alert", { code: "{{call.error.code}}", message: "{{call.error.message}}" }),
        end("end", { ok: "{{ok.result}}", alert: "{{alert.result}}" }),
      ],
      [
        edge("start", "call"),
        edge("call", "ok"),
        edge("call", "alert", "error"),
        edge("ok", "end"),
        edge("alert", "end"),
      ],
    );

  it("a failed node takes its error edges: the error branch sees {{node.error.*}}, the normal successors are skipped", async () => {
    const recorder = lineRecorder();
    const result = await run(branching(), {
      recorder,
      executors: {
        code: async () => {
          throw new NodeExecutionError("upstream_unavailable", "503 from the API");
        },
      },
    });
    expect(result).toMatchObject({
      status: "succeeded",
      outputs: { ok: null, alert: { code: "upstream_unavailable", message: "503 from the API" } },
    });
    const statuses = Object.fromEntries(result.nodes.map((node) => [node.node_id, node.status]));
    expect(statuses).toEqual({
      start: "succeeded",
      call: "failed",
      ok: "skipped",
      alert: "succeeded",
      end: "succeeded",
    });
    expect(result.nodes.find((node) => node.node_id === "call")).toMatchObject({
      continued: true,
      outputs: { error: { code: "upstream_unavailable", message: "503 from the API" } },
    });
    expect(recorder.lines).toContain("node_skipped ok");
  });

  it("a node that succeeds skips its error branch", async () => {
    const result = await run(branching());
    const statuses = Object.fromEntries(result.nodes.map((node) => [node.node_id, node.status]));
    expect(statuses).toMatchObject({
      call: "succeeded",
      ok: "succeeded",
      alert: "skipped",
      end: "succeeded",
    });
    expect(result.outputs).toEqual({ ok: { value: 1 }, alert: null });
  });

  it("retries before branching: the error branch runs once the attempts are spent", async () => {
    const time = fakeTime();
    const { calls, executor } = flaky(99);
    const graph = graphOf(
      [
        start(),
        code("call", {}, { on_error: "branch", retry: { max_attempts: 3, initial_ms: 1_000 } }),
        end("done", {}),
        end("failed", { why: "{{call.error.code}}" }),
      ],
      [edge("start", "call"), edge("call", "done"), edge("call", "failed", "error")],
    );
    const result = await run(graph, { ...time, executors: { code: executor } });
    expect(calls).toHaveLength(3);
    expect(time.delays).toEqual([1_000, 2_000]);
    expect(result).toMatchObject({ status: "succeeded", outputs: { why: "upstream_unavailable" } });
  });

  it("validation accepts an error edge only out of a node with on_error: branch", () => {
    const graph = (onError: "branch" | "fail") =>
      graphOf(
        [start(), tool("call", {}, { on_error: onError }), end("end", {}), end("oops", {})],
        [edge("start", "call"), edge("call", "end"), edge("call", "oops", "error")],
      );
    expect(validateGraph(graph("branch"))).toEqual([]);
    expect(validateGraph(graph("fail"))).toEqual([
      expect.objectContaining({ code: "unexpected_handle", edge_id: "call->oops:error", node_id: "call" }),
    ]);
    const other = graphOf(
      [start(), tool("call", {}, { on_error: "branch" }), end("end", {})],
      [edge("start", "call"), edge("call", "end", "done")],
    );
    expect(validateGraph(other)).toEqual([expect.objectContaining({ code: "unexpected_handle" })]);
  });
});

describe("recorded nodes", () => {
  const recordedNode = (outputs: Record<string, unknown>, status: "succeeded" | "failed" = "succeeded") =>
    ({
      status,
      started_at: T0,
      finished_at: T0,
      elapsed_ms: 5,
      inputs: null,
      outputs,
      usage: null,
      error: status === "failed" ? { code: "boom", message: "it broke" } : null,
      logs: null,
      attempts: null,
    }) satisfies RecordedNode;

  it("runs only the nodes without a recorded outcome, feeding them the recorded outputs", async () => {
    const executed: string[] = [];
    const graph = graphOf(
      [start(), tool("a", { n: 1 }), tool("b", { from: "{{a.result}}" }), end("end", { b: "{{b.result}}" })],
      [edge("start", "a"), edge("a", "b"), edge("b", "end")],
    );
    const recorder = lineRecorder();
    const result = await run(graph, {
      recorder,
      recorded: new Map([
        ["start", recordedNode({})],
        ["a", recordedNode({ result: "from the first execution" })],
      ]),
      executors: {
        tool: async ({ node, inputs }) => {
          executed.push(node.id);
          return { outputs: { result: inputs.args } };
        },
      },
    });
    expect(executed).toEqual(["b"]);
    expect(result).toMatchObject({
      status: "succeeded",
      outputs: { b: { from: "from the first execution" } },
    });
    expect(recorder.lines.slice(0, 4)).toEqual([
      "run_started",
      "node_finished start",
      "node_finished a",
      "node_started b",
    ]);
  });

  it("runs again a node recorded as failed unless its on_error let the run go on, and follows a recorded branch", async () => {
    const executed: string[] = [];
    const graph = graphOf(
      [
        start(),
        tool("a", {}, { on_error: "branch" }),
        tool("fine"),
        tool("fallback", { why: "{{a.error.code}}" }),
        end("end", { fallback: "{{fallback.result}}" }),
      ],
      [
        edge("start", "a"),
        edge("a", "fine"),
        edge("a", "fallback", "error"),
        edge("fine", "end"),
        edge("fallback", "end"),
      ],
    );
    const result = await run(graph, {
      recorded: new Map([
        ["start", recordedNode({})],
        ["a", recordedNode({ error: { code: "boom", message: "it broke" } }, "failed")],
      ]),
      executors: {
        tool: async ({ node, inputs }) => {
          executed.push(node.id);
          return { outputs: { result: inputs.args } };
        },
      },
    });
    expect(executed).toEqual(["fallback"]);
    expect(result.outputs).toEqual({ fallback: { why: "boom" } });
  });
});
