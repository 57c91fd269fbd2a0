import { setImmediate as nextTurn } from "node:timers/promises";
import { manualClock } from "@app/core";
import { describe, expect, it } from "vitest";
import { compileWorkflow, WorkflowGraphError } from "./compile-workflow.ts";
import type { NodeExecutors } from "./executors.ts";
import { NodeExecutionError } from "./node-error.ts";
import type { RunRecorder } from "./run-events.ts";
import { type RunWorkflowOptions, runWorkflow } from "./run-workflow.ts";
import type { WorkflowGraph } from "./schema.ts";
import {
  barrier,
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

/** A promise plus the function that settles it, for executors the test releases by hand. */
function signalled<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Waits for the signal to abort, then rejects with its reason, as a cooperative executor does. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

const statuses = (result: { nodes: { node_id: string; status: string }[] }) =>
  Object.fromEntries(result.nodes.map((node) => [node.node_id, node.status]));

describe("runWorkflow: execution order", () => {
  it("runs a linear chain, passing outputs along through templates", async () => {
    const graph = graphOf(
      [
        start([{ name: "question", type: "string", required: true }]),
        code("shout", { text: "{{start.question}}" }, {}, "string"),
        tool("wrap", { value: "{{shout.result}}", n: 2 }),
        end("end", { answer: "{{wrap.result.value}}!", raw: "{{wrap.result}}" }),
      ],
      [edge("start", "shout"), edge("shout", "wrap"), edge("wrap", "end")],
    );
    const recorder = lineRecorder();
    const result = await run(graph, {
      inputs: { question: "why?" },
      recorder,
      executors: {
        code: async ({ inputs }) => ({ outputs: { result: String(inputs.inputs[0]?.value).toUpperCase() } }),
      },
    });
    expect(result).toMatchObject({
      run_id: "run_1",
      status: "succeeded",
      steps: 4,
      error: null,
      outputs: { answer: "WHY?!", raw: { value: "WHY?", n: 2 } },
    });
    expect(recorder.lines).toEqual([
      "run_started",
      "node_started start",
      "node_finished start",
      "node_started shout",
      "node_finished shout",
      "node_started wrap",
      "node_finished wrap",
      "node_started end",
      "node_finished end",
      "run_finished succeeded",
    ]);
    expect(result.nodes.map((node) => [node.node_id, node.step, node.status])).toEqual([
      ["start", 1, "succeeded"],
      ["shout", 2, "succeeded"],
      ["wrap", 3, "succeeded"],
      ["end", 4, "succeeded"],
    ]);
  });

  it("runs three independent branches concurrently and joins them", async () => {
    // Each branch waits until all three have started: run one at a time, the first would wait until
    // its timeout and fail the run.
    const gate = barrier(3);
    const graph = graphOf(
      [
        start(),
        tool("a", {}, { timeout_ms: 5_000 }),
        tool("b", {}, { timeout_ms: 5_000 }),
        tool("c", {}, { timeout_ms: 5_000 }),
        code("join", { a: "{{a.result}}", b: "{{b.result}}", c: "{{c.result}}" }, {}, "array"),
        end("end", { all: "{{join.result}}" }),
      ],
      [
        edge("start", "a"),
        edge("start", "b"),
        edge("start", "c"),
        edge("a", "join"),
        edge("b", "join"),
        edge("c", "join"),
        edge("join", "end"),
      ],
    );
    const recorder = lineRecorder();
    const result = await run(graph, {
      recorder,
      executors: {
        tool: async ({ node }) => {
          await gate.arrive();
          return { outputs: { result: node.id } };
        },
        code: async ({ inputs }) => ({ outputs: { result: inputs.inputs.map((input) => input.value) } }),
      },
    });
    expect(result.status).toBe("succeeded");
    expect(gate.arrived()).toBe(3);
    expect(result.outputs).toEqual({ all: ["a", "b", "c"] });
    const branchEvents = recorder.lines.filter((line) => / [abc]$/.test(line));
    expect(branchEvents.slice(0, 3).sort()).toEqual(["node_started a", "node_started b", "node_started c"]);
    expect(recorder.lines.filter((line) => line === "node_started join")).toHaveLength(1);
  });

  it("starts a join only when every incoming branch has finished", async () => {
    const slowMayFinish = signalled();
    const graph = graphOf(
      [start(), tool("slow"), tool("fast"), tool("join"), end("end", {})],
      [
        edge("start", "slow"),
        edge("start", "fast"),
        edge("slow", "join"),
        edge("fast", "join"),
        edge("join", "end"),
      ],
    );
    const recorder = lineRecorder();
    const releasing: RunRecorder = {
      ...recorder,
      onNodeFinished: (event) => {
        recorder.onNodeFinished?.(event);
        if (event.node_id === "fast") slowMayFinish.resolve();
      },
    };
    const result = await run(graph, {
      recorder: releasing,
      executors: {
        tool: async ({ node }) => {
          if (node.id === "slow") await slowMayFinish.promise;
          return { outputs: { result: node.id } };
        },
      },
    });
    expect(result.status).toBe("succeeded");
    const order = recorder.lines.filter((line) => /(slow|fast|join)$/.test(line));
    expect(order.slice(2)).toEqual([
      "node_finished fast",
      "node_finished slow",
      "node_started join",
      "node_finished join",
    ]);
  });
});

describe("runWorkflow: conditions", () => {
  const ageGraph = () =>
    graphOf(
      [
        start([{ name: "age", type: "number", required: true }]),
        {
          id: "cond",
          type: "condition",
          data: {
            cases: [
              { id: "child", conditions: [{ left: "{{start.age}}", operator: "lt", right: 13 }] },
              { id: "teen", conditions: [{ left: "{{start.age}}", operator: "lt", right: "18" }] },
            ],
          },
        },
        tool("child_a"),
        tool("child_b"),
        tool("teen"),
        tool("adult"),
        end("end_child", { who: "child" }),
        end("end_teen", { who: "teen" }),
        end("end_adult", { who: "{{adult.result}}" }),
      ],
      [
        edge("start", "cond"),
        edge("cond", "child_a", "child"),
        edge("child_a", "child_b"),
        edge("child_b", "end_child"),
        edge("cond", "teen", "teen"),
        edge("teen", "end_teen"),
        edge("cond", "adult", "else"),
        edge("adult", "end_adult"),
      ],
    );

  it("runs only the first matching case's branch (else otherwise) and skips the rest downstream", async () => {
    const child = await run(ageGraph(), { inputs: { age: 8 } });
    const teen = await run(ageGraph(), { inputs: { age: 15 } });
    const adult = await run(ageGraph(), { inputs: { age: 40 } });

    expect(statuses(child)).toEqual({
      start: "succeeded",
      cond: "succeeded",
      child_a: "succeeded",
      child_b: "succeeded",
      end_child: "succeeded",
      teen: "skipped",
      end_teen: "skipped",
      adult: "skipped",
      end_adult: "skipped",
    });
    expect(statuses(teen)).toEqual({
      start: "succeeded",
      cond: "succeeded",
      child_a: "skipped",
      child_b: "skipped",
      end_child: "skipped",
      teen: "succeeded",
      end_teen: "succeeded",
      adult: "skipped",
      end_adult: "skipped",
    });
    expect(statuses(adult)).toEqual({
      start: "succeeded",
      cond: "succeeded",
      child_a: "skipped",
      child_b: "skipped",
      end_child: "skipped",
      teen: "skipped",
      end_teen: "skipped",
      adult: "succeeded",
      end_adult: "succeeded",
    });
    expect([child.outputs, teen.outputs, adult.outputs]).toEqual([
      { who: "child" },
      { who: "teen" },
      { who: {} },
    ]);
    const matched = (result: typeof child) => result.nodes.find((node) => node.node_id === "cond")?.outputs;
    expect([matched(child), matched(teen), matched(adult)]).toEqual([
      { matched_case: "child" },
      { matched_case: "teen" },
      { matched_case: "else" },
    ]);
  });

  it("runs a join after a condition once, with the skipped branch's references empty", async () => {
    const graph = graphOf(
      [
        start([{ name: "n", type: "number", required: true }]),
        {
          id: "cond",
          type: "condition",
          data: { cases: [{ id: "big", conditions: [{ left: "{{start.n}}", operator: "gt", right: 10 }] }] },
        },
        code("big", {}, {}, "string"),
        code("small", {}, {}, "string"),
        code("join", {
          big: "{{big.result}}",
          small: "{{small.result}}",
          text: "[{{big.result}}|{{small.result}}]",
        }),
        end("end", { out: "{{join.result}}" }),
      ],
      [
        edge("start", "cond"),
        edge("cond", "big", "big"),
        edge("cond", "small", "else"),
        edge("big", "join"),
        edge("small", "join"),
        edge("join", "end"),
      ],
    );
    const joinInputs: unknown[] = [];
    const recorder = lineRecorder();
    const result = await run(graph, {
      inputs: { n: 50 },
      recorder,
      executors: {
        code: async ({ node, inputs }) => {
          if (node.id === "join") {
            joinInputs.push(inputs.inputs);
            return { outputs: { result: 1 } };
          }
          return { outputs: { result: node.id.toUpperCase() } };
        },
      },
    });
    expect(result.status).toBe("succeeded");
    expect(joinInputs).toEqual([
      [
        { name: "big", value: "BIG" },
        { name: "small", value: null },
        { name: "text", value: "[BIG|]" },
      ],
    ]);
    expect(recorder.lines.filter((line) => /(big|small|join)$/.test(line))).toEqual([
      "node_started big",
      "node_skipped small",
      "node_finished big",
      "node_started join",
      "node_finished join",
    ]);
  });

  it("skips a node whose every incoming edge is skipped, even when two branches lead to it", async () => {
    const graph = graphOf(
      [
        start(),
        {
          id: "cond",
          type: "condition",
          data: {
            cases: [
              { id: "one", conditions: [{ left: 1, operator: "eq", right: 2 }] },
              { id: "two", conditions: [{ left: 1, operator: "eq", right: 3 }] },
            ],
          },
        },
        tool("shared"),
        tool("fallback"),
        end("end", {}),
      ],
      [
        edge("start", "cond"),
        edge("cond", "shared", "one"),
        edge("cond", "shared", "two"),
        edge("cond", "fallback", "else"),
        edge("shared", "end"),
        edge("fallback", "end"),
      ],
    );
    const result = await run(graph);
    expect(statuses(result)).toMatchObject({ shared: "skipped", fallback: "succeeded", end: "succeeded" });
  });
});

describe("runWorkflow: errors and limits", () => {
  const failingChain = (extra: PolicyFields = {}) =>
    graphOf(
      [
        start(),
        code("boom", {}, extra),
        tool(
          "after",
          extra.on_error === "continue"
            ? { value: "{{boom.result}}", why: "{{boom.error.message}}" }
            : { value: "{{boom.result}}" },
        ),
        end("end", { value: "{{after.result.value}}" }),
      ],
      [edge("start", "boom"), edge("boom", "after"), edge("after", "end")],
    );
  const exploding = {
    code: async (): Promise<never> => {
      throw new NodeExecutionError("sandbox_error", "exit status 1");
    },
  };

  it("fails the run when a node fails under on_error: fail", async () => {
    const recorder = lineRecorder();
    const result = await run(failingChain({ on_error: "fail" }), { recorder, executors: exploding });
    expect(result).toMatchObject({
      status: "failed",
      outputs: null,
      error: { code: "sandbox_error", node_id: "boom", message: "Node boom failed: exit status 1" },
    });
    expect(recorder.lines).toEqual([
      "run_started",
      "node_started start",
      "node_finished start",
      "node_started boom",
      "node_failed boom sandbox_error",
      "run_finished failed",
    ]);
    expect(result.nodes.find((node) => node.node_id === "boom")).toMatchObject({
      status: "failed",
      continued: false,
      outputs: null,
      error: { code: "sandbox_error", message: "exit status 1" },
    });
  });

  it("fails the run by default, reporting an executor's plain error as executor_failed", async () => {
    const result = await run(failingChain(), {
      executors: {
        code: async () => {
          throw new Error("sandbox unreachable");
        },
      },
    });
    expect(result.error).toEqual({
      code: "executor_failed",
      message: "Node boom failed: sandbox unreachable",
      node_id: "boom",
    });
  });

  it("continues with the default output and the error under on_error: continue", async () => {
    const seen: unknown[] = [];
    const result = await run(failingChain({ on_error: "continue", default_output: { result: 0 } }), {
      executors: {
        ...exploding,
        tool: async ({ inputs }) => {
          seen.push(inputs.args);
          return { outputs: { result: inputs.args } };
        },
      },
    });
    expect(result).toMatchObject({ status: "succeeded", outputs: { value: 0 }, error: null });
    expect(seen).toEqual([{ value: 0, why: "exit status 1" }]);
    expect(result.nodes.find((node) => node.node_id === "boom")).toMatchObject({
      status: "failed",
      continued: true,
      outputs: { result: 0, error: { code: "sandbox_error", message: "exit status 1" } },
    });
  });

  it("aborts the other running branches when a node fails the run", async () => {
    let siblingSignal: AbortSignal | undefined;
    const graph = graphOf(
      [start(), tool("sibling"), code("boom"), end("end", {})],
      [edge("start", "sibling"), edge("start", "boom"), edge("sibling", "end"), edge("boom", "end")],
    );
    const result = await run(graph, {
      executors: {
        ...exploding,
        tool: ({ signal }) => {
          siblingSignal = signal;
          return untilAborted(signal);
        },
      },
    });
    expect(result.error).toMatchObject({ code: "sandbox_error", node_id: "boom" });
    expect(siblingSignal?.aborted).toBe(true);
    expect(result.nodes.find((node) => node.node_id === "sibling")).toMatchObject({
      status: "failed",
      continued: false,
      error: { code: "run_stopped" },
    });
  });

  it("fails a node that exceeds its timeout and aborts its executor's signal", async () => {
    let reason: unknown;
    const graph = graphOf(
      [start(), tool("hang", {}, { timeout_ms: 20 }), end("end", {})],
      [edge("start", "hang"), edge("hang", "end")],
    );
    const result = await run(graph, {
      executors: {
        tool: async ({ signal }) => {
          try {
            return await untilAborted(signal);
          } finally {
            reason = signal.reason;
          }
        },
      },
    });
    expect(reason).toMatchObject({ code: "node_timeout" });
    expect(result.error).toEqual({
      code: "node_timeout",
      message: "Node hang failed: Node hang did not finish within 20 ms.",
      node_id: "hang",
    });
  });

  it("times out an executor that ignores its signal, using the run's default node timeout", async () => {
    const graph = graphOf(
      [start(), tool("deaf"), end("end", {})],
      [edge("start", "deaf"), edge("deaf", "end")],
    );
    const result = await run(graph, {
      limits: { nodeTimeoutMs: 20 },
      executors: { tool: () => new Promise(() => {}) },
    });
    expect(result.error).toMatchObject({ code: "node_timeout", node_id: "deaf" });
  });

  it("applies on_error: continue to a timeout", async () => {
    const graph = graphOf(
      [
        start(),
        tool("deaf", {}, { timeout_ms: 20, on_error: "continue", default_output: { result: "n/a" } }),
        end("end", { out: "{{deaf.result}}" }),
      ],
      [edge("start", "deaf"), edge("deaf", "end")],
    );
    const result = await run(graph, { executors: { tool: () => new Promise(() => {}) } });
    expect(result).toMatchObject({ status: "succeeded", outputs: { out: "n/a" } });
  });

  it("stops at the step limit before starting one node too many", async () => {
    const graph = graphOf(
      [start(), tool("a"), tool("b"), tool("c"), end("end", {})],
      [edge("start", "a"), edge("a", "b"), edge("b", "c"), edge("c", "end")],
    );
    const recorder = lineRecorder();
    const result = await run(graph, { recorder, limits: { maxSteps: 3 } });
    expect(result).toMatchObject({
      status: "failed",
      steps: 3,
      error: {
        code: "step_limit_exceeded",
        node_id: "c",
        message: "The run reached its limit of 3 steps before node c.",
      },
    });
    expect(recorder.lines.filter((line) => line.startsWith("node_started"))).toEqual([
      "node_started start",
      "node_started a",
      "node_started b",
    ]);
  });

  it("does not count skipped nodes as steps", async () => {
    const graph = graphOf(
      [
        start(),
        {
          id: "cond",
          type: "condition",
          data: { cases: [{ id: "never", conditions: [{ left: 1, operator: "eq", right: 2 }] }] },
        },
        tool("x1"),
        tool("x2"),
        tool("x3"),
        end("end", {}),
      ],
      [
        edge("start", "cond"),
        edge("cond", "x1", "never"),
        edge("x1", "x2"),
        edge("x2", "x3"),
        edge("cond", "end", "else"),
      ],
    );
    const result = await run(graph, { limits: { maxSteps: 3 } });
    expect(result).toMatchObject({ status: "succeeded", steps: 3 });
  });

  it("fails the run at its time limit and aborts running executors", async () => {
    let reason: unknown;
    const graph = graphOf(
      [start(), tool("hang"), end("end", {})],
      [edge("start", "hang"), edge("hang", "end")],
    );
    const result = await run(graph, {
      limits: { timeoutMs: 20 },
      executors: {
        tool: async ({ signal }) => {
          try {
            return await untilAborted(signal);
          } finally {
            reason = signal.reason;
          }
        },
      },
    });
    expect(reason).toMatchObject({ code: "run_timeout" });
    expect(result).toMatchObject({ status: "failed", error: { code: "run_timeout" } });
    expect(result.nodes.find((node) => node.node_id === "hang")?.error?.code).toBe("run_timeout");
  });

  it("cancels through the caller's AbortSignal, aborting running executors", async () => {
    const controller = new AbortController();
    const started = signalled();
    let executorSignal: AbortSignal | undefined;
    const graph = graphOf(
      [start(), tool("work"), tool("next"), end("end", {})],
      [edge("start", "work"), edge("work", "next"), edge("next", "end")],
    );
    const recorder = lineRecorder();
    const running = run(graph, {
      recorder,
      signal: controller.signal,
      executors: {
        tool: ({ signal }) => {
          executorSignal = signal;
          started.resolve();
          return untilAborted(signal);
        },
      },
    });
    await started.promise;
    controller.abort();
    const result = await running;
    expect(executorSignal?.aborted).toBe(true);
    expect(result).toMatchObject({ status: "cancelled", error: { code: "run_cancelled" }, outputs: null });
    expect(recorder.lines.slice(-2)).toEqual(["node_failed work run_cancelled", "run_finished cancelled"]);
    expect(recorder.lines).not.toContain("node_started next");
  });

  it("runs nothing when the signal is already aborted", async () => {
    const recorder = lineRecorder();
    const graph = graphOf([start(), end("end", {})], [edge("start", "end")]);
    const result = await run(graph, { recorder, signal: AbortSignal.abort() });
    expect(result).toMatchObject({ status: "cancelled", steps: 0, nodes: [] });
    expect(recorder.lines).toEqual(["run_started", "run_finished cancelled"]);
  });

  it("fails at the start node when required inputs are missing or mistyped", async () => {
    const graph = graphOf(
      [
        start([
          { name: "n", type: "number", required: true },
          { name: "q", type: "string", required: true },
        ]),
        end("end", {}),
      ],
      [edge("start", "end")],
    );
    const result = await run(graph, { inputs: { n: "five" } });
    expect(result.error).toEqual({
      code: "invalid_inputs",
      node_id: "start",
      message:
        "Node start failed: The run inputs are invalid. Input n must be a number, got string. Input q is required.",
    });
  });

  it("fails a node whose template names a missing path, unless missing values resolve empty", async () => {
    const graph = graphOf(
      [
        start(),
        code("c"),
        tool("t", { deep: "{{c.result.value}}" }),
        end("end", { out: "{{t.result.deep}}" }),
      ],
      [edge("start", "c"), edge("c", "t"), edge("t", "end")],
    );
    const strict = await run(graph);
    expect(strict.error).toEqual({
      code: "missing_value",
      node_id: "t",
      message: "Node t failed: {{c.result.value}}: c has no value at result.value",
    });
    expect(strict.nodes.find((node) => node.node_id === "t")?.inputs).toBeNull();
    const lenient = await run(graph, { missingValues: "empty" });
    expect(lenient).toMatchObject({ status: "succeeded", outputs: { out: null } });
  });

  it("checks code outputs against their declared types", async () => {
    const graph = graphOf([start(), code("c"), end("end", {})], [edge("start", "c"), edge("c", "end")]);
    const mistyped = await run(graph, { executors: { code: async () => ({ outputs: { result: "1" } }) } });
    expect(mistyped.error).toMatchObject({ code: "output_type_mismatch", node_id: "c" });
    const missing = await run(graph, { executors: { code: async () => ({ outputs: {} }) } });
    expect(missing.error).toMatchObject({ code: "missing_output", node_id: "c" });
  });

  it("fails a condition whose pattern, supplied at run time, is refused", async () => {
    const graph = graphOf(
      [
        start([{ name: "pattern", type: "string", required: true }]),
        {
          id: "cond",
          type: "condition",
          data: {
            cases: [
              { id: "hit", conditions: [{ left: "aaaa", operator: "matches", right: "{{start.pattern}}" }] },
            ],
          },
        },
        end("end", {}),
      ],
      [edge("start", "cond"), edge("cond", "end", "hit"), edge("cond", "end", "else")],
    );
    const safe = await run(graph, { inputs: { pattern: "^a+$" } });
    expect(safe.nodes.find((node) => node.node_id === "cond")?.outputs).toEqual({ matched_case: "hit" });
    const risky = await run(graph, { inputs: { pattern: "^(a+)+$" } });
    expect(risky.error).toMatchObject({ code: "invalid_pattern", node_id: "cond" });
  });

  it("rejects executor results without outputs or with malformed usage", async () => {
    const graph = graphOf([start(), tool("t"), end("end", {})], [edge("start", "t"), edge("t", "end")]);
    const noOutputs = await run(graph, { executors: { tool: async () => ({}) as never } });
    expect(noOutputs.error).toMatchObject({ code: "invalid_outputs", node_id: "t" });
    const badUsage = await run(graph, {
      executors: { tool: async () => ({ outputs: {}, usage: { total_tokens: "12" } }) as never },
    });
    expect(badUsage.error).toMatchObject({ code: "invalid_outputs", node_id: "t" });
  });

  it("refuses to compile an invalid graph, listing its issues", () => {
    const graph = graphOf([start(), tool("a")], [edge("start", "a")]);
    expect(() => compileWorkflow(graph)).toThrow(WorkflowGraphError);
    expect(() => compileWorkflow(graph)).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ code: "missing_end" })] }),
    );
  });
});

describe("runWorkflow: inputs, outputs and records", () => {
  it("resolves templates into nested fields, keeping types where a field is one template", async () => {
    const graph = graphOf(
      [
        start([
          { name: "q", type: "string", required: true },
          { name: "limit", type: "number", default: 3 },
          { name: "tags", type: "array", default: ["x", "y"] },
          { name: "obj", type: "object", default: { a: { b: true } } },
        ]),
        tool("t", {
          query: { text: "Q: {{start.q}}", limit: "{{start.limit}}" },
          list: ["{{start.tags[1]}}", { deep: "{{start.obj.a.b}}" }],
        }),
        {
          id: "h",
          type: "http",
          data: {
            method: "POST",
            url: "https://example.com/{{start.q}}?n={{start.limit}}",
            headers: { "x-limit": "{{start.limit}}" },
            body: "{{start.obj}}",
          },
        },
        { id: "l", type: "llm", data: { provider: "openai", model: "m", prompt: "{{start.obj}}" } },
        code("c", { tags: "{{start.tags}}" }),
        end("end", {}),
      ],
      [
        edge("start", "t"),
        edge("start", "h"),
        edge("start", "l"),
        edge("start", "c"),
        edge("t", "end"),
        edge("h", "end"),
        edge("l", "end"),
        edge("c", "end"),
      ],
    );
    const received: Record<string, unknown> = {};
    const result = await run(graph, {
      inputs: { q: "cats" },
      executors: {
        tool: async ({ inputs }) => {
          received.tool = inputs.args;
          return { outputs: { result: 1 } };
        },
        http: async ({ inputs }) => {
          received.http = { url: inputs.url, headers: inputs.headers, body: inputs.body };
          return { outputs: { status: 200 } };
        },
        llm: async ({ inputs }) => {
          received.llm = inputs.prompt;
          return { outputs: { text: "" } };
        },
        code: async ({ inputs }) => {
          received.code = { code: inputs.code, inputs: inputs.inputs };
          return { outputs: { result: 1 } };
        },
      },
    });
    expect(result.status).toBe("succeeded");
    expect(received).toEqual({
      tool: { query: { text: "Q: cats", limit: 3 }, list: ["y", { deep: true }] },
      http: { url: "https://example.com/cats?n=3", headers: { "x-limit": "3" }, body: { a: { b: true } } },
      llm: '{"a":{"b":true}}',
      code: { code: "return { result: 1 }", inputs: [{ name: "tags", value: ["x", "y"] }] },
    });
  });

  it("leaves a code node's source untouched even when it contains braces", async () => {
    const graph = graphOf([start(), code("go"), end("end", {})], [edge("start", "go"), edge("go", "end")]);
    const goNode = graph.nodes[1];
    if (goNode?.type === "code") goNode.data.code = 'x := [][]int{{1, 2}}; s := "{{start.q}}"';
    let source = "";
    await run(graph, {
      executors: {
        code: async ({ inputs }) => {
          source = inputs.code;
          return { outputs: { result: 1 } };
        },
      },
    });
    expect(source).toBe('x := [][]int{{1, 2}}; s := "{{start.q}}"');
  });

  it("delivers recorder events in order, one at a time, even from an async recorder", async () => {
    const lines: string[] = [];
    let active = 0;
    const slowly =
      <E>(line: (event: E) => string) =>
      async (event: E) => {
        active += 1;
        if (active > 1) lines.push("overlap!");
        await nextTurn();
        lines.push(line(event));
        active -= 1;
      };
    const recorder: RunRecorder = {
      onRunStarted: slowly(() => "run_started"),
      onNodeStarted: slowly((event) => `node_started ${event.node_id}`),
      onNodeFinished: slowly((event) => `node_finished ${event.node_id}`),
      onNodeFailed: slowly((event) => `node_failed ${event.node_id}`),
      onNodeSkipped: slowly((event) => `node_skipped ${event.node_id}`),
      onRunFinished: slowly(() => "run_finished"),
    };
    const graph = graphOf(
      [
        start(),
        {
          id: "cond",
          type: "condition",
          data: { cases: [{ id: "yes", conditions: [{ left: "a", operator: "eq", right: "a" }] }] },
        },
        tool("left"),
        tool("right"),
        tool("no"),
        code("join", { l: "{{left.result}}", r: "{{right.result}}", n: "{{no.result}}" }),
        end("end", {}),
      ],
      [
        edge("start", "cond"),
        edge("cond", "left", "yes"),
        edge("cond", "right", "yes"),
        edge("cond", "no", "else"),
        edge("left", "join"),
        edge("right", "join"),
        edge("no", "join"),
        edge("join", "end"),
      ],
    );
    await run(graph, { recorder });
    expect(lines).toEqual([
      "run_started",
      "node_started start",
      "node_finished start",
      "node_started cond",
      "node_finished cond",
      "node_started left",
      "node_started right",
      "node_skipped no",
      "node_finished left",
      "node_finished right",
      "node_started join",
      "node_finished join",
      "node_started end",
      "node_finished end",
      "run_finished",
    ]);
  });

  it("stamps events with the injected clock and carries inputs, outputs, timings and tokens", async () => {
    const clock = manualClock(new Date("2026-03-01T10:00:00.000Z"));
    const events: unknown[] = [];
    const graph = graphOf(
      [
        start([{ name: "q", type: "string", required: true }]),
        {
          id: "ask",
          type: "llm",
          data: { title: "Ask", provider: "openai", model: "m", prompt: "Say {{start.q}}" },
        },
        end("end", { text: "{{ask.text}}" }),
      ],
      [edge("start", "ask"), edge("ask", "end")],
    );
    const result = await run(graph, {
      clock,
      inputs: { q: "hi" },
      recorder: {
        onNodeStarted: (event) => {
          if (event.node_id === "ask") events.push(event);
        },
        onNodeFinished: (event) => {
          if (event.node_id === "ask") events.push(event);
        },
      },
      executors: {
        llm: async ({ inputs }) => {
          clock.advance(250);
          return {
            outputs: { text: inputs.prompt, usage: { total_tokens: 7 } },
            usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
          };
        },
      },
    });
    const inputs = { provider: "openai", model: "m", prompt: "Say hi", title: "Ask" };
    expect(events).toEqual([
      {
        run_id: "run_1",
        node_id: "ask",
        node_type: "llm",
        title: "Ask",
        step: 2,
        started_at: new Date("2026-03-01T10:00:00.000Z"),
        inputs,
      },
      {
        run_id: "run_1",
        node_id: "ask",
        node_type: "llm",
        title: "Ask",
        step: 2,
        status: "succeeded",
        started_at: new Date("2026-03-01T10:00:00.000Z"),
        finished_at: new Date("2026-03-01T10:00:00.250Z"),
        elapsed_ms: 250,
        inputs,
        outputs: { text: "Say hi", usage: { total_tokens: 7 } },
        usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
        attempts: null,
        reused: false,
      },
    ]);
    expect(result).toMatchObject({
      status: "succeeded",
      outputs: { text: "Say hi" },
      elapsed_ms: 250,
      usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
    });
  });

  it("sums token usage over nodes and merges the outputs of every end that ran", async () => {
    const graph = graphOf(
      [
        start(),
        { id: "l1", type: "llm", data: { provider: "p", model: "m", prompt: "a" } },
        { id: "l2", type: "llm", data: { provider: "p", model: "m", prompt: "b" } },
        end("end_1", { first: "{{l1.text}}", shared: "one" }),
        end("end_2", { second: "{{l2.text}}", shared: "two" }),
      ],
      [edge("start", "l1"), edge("start", "l2"), edge("l1", "end_1"), edge("l2", "end_2")],
    );
    const result = await run(graph);
    expect(result.usage).toEqual({ input_tokens: 4, output_tokens: 2, total_tokens: 6 });
    expect(result.outputs).toEqual({ first: "echo: a", second: "echo: b", shared: "two" });
  });

  it("rejects when the recorder fails, delivering nothing after the failure", async () => {
    const recorder = lineRecorder();
    const graph = graphOf([start(), tool("t"), end("end", {})], [edge("start", "t"), edge("t", "end")]);
    const failing: RunRecorder = {
      ...recorder,
      onNodeStarted: (event) => {
        if (event.node_id === "t") throw new Error("database is gone");
        recorder.onNodeStarted?.(event);
      },
    };
    await expect(run(graph, { recorder: failing })).rejects.toThrow("database is gone");
    expect(recorder.lines).toEqual(["run_started", "node_started start", "node_finished start"]);
  });
});
