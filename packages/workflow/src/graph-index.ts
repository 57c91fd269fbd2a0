import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from "./schema.ts";

/** Lookups over a graph; edges whose ends do not exist are left out of `outgoing` and `incoming`. */
export interface GraphIndex {
  nodes: ReadonlyMap<string, WorkflowNode>;
  /** Position of each node in `graph.nodes`, for issue paths and a stable order. */
  positions: ReadonlyMap<string, number>;
  outgoing: ReadonlyMap<string, readonly WorkflowEdge[]>;
  incoming: ReadonlyMap<string, readonly WorkflowEdge[]>;
}

/**
 * Indexes a graph by node id; with duplicate ids the first node wins (validation reports the rest).
 *
 * @example indexGraph(graph).outgoing.get("start") // the edges leaving the start node
 */
export function indexGraph(graph: WorkflowGraph): GraphIndex {
  const nodes = new Map<string, WorkflowNode>();
  const positions = new Map<string, number>();
  const outgoing = new Map<string, WorkflowEdge[]>();
  const incoming = new Map<string, WorkflowEdge[]>();
  for (const [position, node] of graph.nodes.entries()) {
    if (nodes.has(node.id)) continue;
    nodes.set(node.id, node);
    positions.set(node.id, position);
    outgoing.set(node.id, []);
    incoming.set(node.id, []);
  }
  for (const edge of graph.edges) {
    const from = outgoing.get(edge.source);
    const to = incoming.get(edge.target);
    if (from === undefined || to === undefined) continue;
    from.push(edge);
    to.push(edge);
  }
  return { nodes, positions, outgoing, incoming };
}

/**
 * Every node from which `nodeId` can be reached (its ancestors), not counting itself unless on a cycle.
 *
 * @example ancestorsOf(index, "end") // Set { "start", "llm_1" }
 */
export function ancestorsOf(index: GraphIndex, nodeId: string): Set<string> {
  const seen = new Set<string>();
  const queue = [nodeId];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const edge of index.incoming.get(next) ?? []) {
      if (seen.has(edge.source)) continue;
      seen.add(edge.source);
      queue.push(edge.source);
    }
  }
  return seen;
}

/**
 * Node ids reachable from `from`, including it.
 *
 * @example reachableFrom(index, "start").has("orphan") // false
 */
export function reachableFrom(index: GraphIndex, from: string): Set<string> {
  const seen = new Set<string>([from]);
  const queue = [from];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const edge of index.outgoing.get(next) ?? []) {
      if (seen.has(edge.target)) continue;
      seen.add(edge.target);
      queue.push(edge.target);
    }
  }
  return seen;
}

/**
 * The cycles of a graph, each as the node ids along it (`["a", "b"]` for a → b → a), found by depth-first
 * search; each node is reported in at most one cycle.
 *
 * @example findCycles(index) // [["llm_1", "code_1"]]
 */
export function findCycles(index: GraphIndex): string[][] {
  const state = new Map<string, "visiting" | "done">();
  const cycles: string[][] = [];
  const reported = new Set<string>();
  for (const root of index.nodes.keys()) {
    if (state.has(root)) continue;
    // Iterative DFS: graphs of hundreds of nodes in a chain must not overflow the stack.
    const stack: { id: string; edge: number }[] = [{ id: root, edge: 0 }];
    state.set(root, "visiting");
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) break;
      const edges = index.outgoing.get(frame.id) ?? [];
      const edge = edges[frame.edge];
      frame.edge += 1;
      if (edge === undefined) {
        state.set(frame.id, "done");
        stack.pop();
        continue;
      }
      const seen = state.get(edge.target);
      if (seen === undefined) {
        state.set(edge.target, "visiting");
        stack.push({ id: edge.target, edge: 0 });
      } else if (seen === "visiting") {
        const start = stack.findIndex((entry) => entry.id === edge.target);
        const cycle = stack.slice(start).map((entry) => entry.id);
        if (cycle.some((id) => reported.has(id))) continue;
        for (const id of cycle) reported.add(id);
        cycles.push(cycle);
      }
    }
  }
  return cycles;
}
