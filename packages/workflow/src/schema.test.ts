import { describe, expect, it } from "vitest";
import { MAX_WORKFLOW_NODES, workflowGraphSchema } from "./schema.ts";

function chain(count: number) {
  const nodes = Array.from({ length: count }, (_, i) => ({
    id: `n${i}`,
    type: "tool",
    position: { x: i * 10, y: 0 },
    data: { tool: "current_time", args: {} },
  }));
  const edges = nodes.slice(1).map((node, i) => ({ id: `e${i}`, source: `n${i}`, target: node.id }));
  return { nodes, edges };
}

describe("workflowGraphSchema size limits", () => {
  it("accepts a 1,000-node workflow and refuses one node more", () => {
    expect(MAX_WORKFLOW_NODES).toBe(1000);
    expect(workflowGraphSchema.safeParse(chain(1000)).success).toBe(true);
    const tooBig = workflowGraphSchema.safeParse(chain(1001));
    expect(tooBig.success).toBe(false);
    expect(tooBig.error?.issues[0]?.path).toEqual(["nodes"]);
  });
});
