import { expect } from "vitest";
import type { TestBuilder } from "./harness.ts";

/** Helpers for the workflow tests: graphs, and creating and running workflows over HTTP. */

export const node = (id: string, type: string, data: Record<string, unknown>) => ({
  id,
  type,
  position: { x: 0, y: 0 },
  data,
});

export const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });

/** start (with the given inputs, all required) → one node → end, the end returning the given templates. */
export function singleNodeGraph(
  middle: ReturnType<typeof node> & Record<string, unknown>,
  outputs: Record<string, string>,
  inputs: { name: string; type: string }[] = [],
) {
  return {
    nodes: [
      node("start", "start", { inputs: inputs.map((input) => ({ ...input, required: true })) }),
      middle,
      node("done", "end", {
        outputs: Object.entries(outputs).map(([name, value]) => ({ name, value })),
      }),
    ],
    edges: [edge("start", middle.id), edge(middle.id, "done")],
  };
}

export interface RunJson {
  id: string;
  status: string;
  outputs: Record<string, unknown> | null;
  error: { code: string; message: string; node_id?: string } | null;
  nodes: {
    node_id: string;
    status: string;
    outputs: Record<string, unknown> | null;
    error: { code: string; message: string } | null;
  }[];
}

export async function createWorkflow(builder: TestBuilder, cookie: string, graph: unknown): Promise<string> {
  const response = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name: "test workflow", graph },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** Runs a workflow and waits for its result (the blocking JSON answer). */
export async function runWorkflow(
  builder: TestBuilder,
  cookie: string,
  id: string,
  inputs: Record<string, unknown> = {},
): Promise<RunJson> {
  const response = await builder.request(`/api/workflows/${id}/runs`, {
    method: "POST",
    cookie,
    json: { inputs },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as RunJson;
}

/** Creates a workflow of `graph` and runs it once. */
export async function runGraph(
  builder: TestBuilder,
  cookie: string,
  graph: unknown,
  inputs: Record<string, unknown> = {},
): Promise<RunJson> {
  return runWorkflow(builder, cookie, await createWorkflow(builder, cookie, graph), inputs);
}

export const nodeOf = (result: RunJson, id: string) => result.nodes.find((n) => n.node_id === id);
