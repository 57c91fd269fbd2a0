// Builders and fakes shared by this package's tests.
import type { z } from "zod";
import type { ExecutorResult, NodeExecutors } from "./executors.ts";
import type { RunRecorder } from "./run-events.ts";
import {
  type WorkflowEdge,
  type WorkflowGraph,
  workflowGraphSchema,
  type workflowNodeSchema,
} from "./schema.ts";

type NodeInput = z.input<typeof workflowNodeSchema>;
type Distribute<T> = T extends unknown
  ? Omit<T, "position"> & { position?: { x: number; y: number } }
  : never;
/** A node as tests write it: schema input (defaults optional) without a position. */
export type NodeDraft = Distribute<NodeInput>;
type ValueType = "string" | "number" | "boolean" | "object" | "array";
export type PolicyFields = {
  on_error?: "fail" | "continue" | "branch";
  default_output?: Record<string, unknown>;
  timeout_ms?: number;
  retry?: { max_attempts: number; backoff?: "fixed" | "exponential"; initial_ms?: number; max_ms?: number };
  requires_approval?: boolean;
  approval_timeout_s?: number;
  on_timeout?: "reject" | "fail";
};

/** A schema-parsed graph (defaults applied) from nodes without positions. */
export function graphOf(nodes: NodeDraft[], edges: WorkflowEdge[]): WorkflowGraph {
  return workflowGraphSchema.parse({
    nodes: nodes.map((node) => ({ position: { x: 0, y: 0 }, ...node })),
    edges,
  });
}

/** An edge named after its ends, e.g. `cond->a:adult`. */
export function edge(source: string, target: string, handle?: string): WorkflowEdge {
  return {
    id: `${source}->${target}${handle === undefined ? "" : `:${handle}`}`,
    source,
    target,
    ...(handle === undefined ? {} : { source_handle: handle }),
  };
}

/** The start node (always id `start`) with the given inputs. */
export const start = (
  inputs: { name: string; type: ValueType; required?: boolean; default?: unknown }[] = [],
): NodeDraft => ({ id: "start", type: "start", data: { inputs } });

/** An end node whose outputs map names to templates. */
export const end = (id: string, outputs: Record<string, string>): NodeDraft => ({
  id,
  type: "end",
  data: { outputs: Object.entries(outputs).map(([name, value]) => ({ name, value })) },
});

/** A tool node; the fake tool executor answers `{ result: args }`. */
export const tool = (
  id: string,
  args: Record<string, unknown> = {},
  extra: PolicyFields = {},
): NodeDraft => ({
  id,
  type: "tool",
  data: { tool: "echo", args },
  ...extra,
});

/** A JavaScript code node declaring one output `result` of the given type. */
export const code = (
  id: string,
  inputs: Record<string, unknown> = {},
  extra: PolicyFields = {},
  type: ValueType = "number",
): NodeDraft => ({
  id,
  type: "code",
  data: {
    language: "javascript",
    code: "return { result: 1 }",
    inputs: Object.entries(inputs).map(([name, value]) => ({ name, value })),
    outputs: [{ name: "result", type }],
  },
  ...extra,
});

/** Executors that answer at once: tools echo their args, code returns `{ result: 1 }` unless told otherwise. */
export function fakeExecutors(overrides: Partial<NodeExecutors> = {}): NodeExecutors {
  return {
    llm: async ({ inputs }) => ({
      outputs: { text: `echo: ${inputs.prompt}`, usage: { total_tokens: 3 } },
      usage: { input_tokens: 2, output_tokens: 1, total_tokens: 3 },
    }),
    code: async (): Promise<ExecutorResult> => ({ outputs: { result: 1 } }),
    http: async () => ({ outputs: { status: 200, headers: {}, body: "ok" } }),
    tool: async ({ inputs }) => ({ outputs: { result: inputs.args } }),
    ...overrides,
  };
}

/** A recorder that writes each event as a short line, e.g. `node_finished a`. */
export function lineRecorder(): RunRecorder & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    onRunStarted: () => {
      lines.push("run_started");
    },
    onNodeStarted: (event) => {
      lines.push(`node_started ${event.node_id}`);
    },
    onNodeFinished: (event) => {
      lines.push(`node_finished ${event.node_id}`);
    },
    onNodeFailed: (event) => {
      lines.push(`node_failed ${event.node_id} ${event.error.code}`);
    },
    onNodeSkipped: (event) => {
      lines.push(`node_skipped ${event.node_id}`);
    },
    onRunFinished: (event) => {
      lines.push(`run_finished ${event.status}`);
    },
  };
}

/** Resolves once `count` parties have arrived; nobody passes before that. */
export function barrier(count: number): { arrive(): Promise<void>; arrived(): number } {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    arrive() {
      arrived += 1;
      if (arrived === count) open();
      return opened;
    },
    arrived: () => arrived,
  };
}
