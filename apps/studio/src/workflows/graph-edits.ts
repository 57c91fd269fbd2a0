import { addEdge, type Connection, type Edge } from "@xyflow/react";
import type { ApiError } from "../api/client.ts";
import {
  type ApiGraph,
  defaultData,
  type EditorNode,
  type NodeType,
  nextNodeId,
  toApi,
  toEditor,
} from "./graph.ts";
import type { GraphIssue } from "./queries.ts";

/**
 * The editor's edits as plain functions of the graph, so the editor component only wires them to
 * events and each can be tested without a browser.
 */
export type Snapshot = { nodes: EditorNode[]; edges: Edge[] };

/** How far a pasted copy sits from its original, so it is seen as a new node. */
const PASTE_OFFSET = 40;

/**
 * Every node and edge selected; unchanged ones keep their objects.
 * @example selectAll({ nodes, edges }).nodes.every((node) => node.selected) // true
 */
export function selectAll(graph: Snapshot): Snapshot {
  return {
    nodes: graph.nodes.map((node) => (node.selected ? node : { ...node, selected: true })),
    edges: graph.edges.map((edge) => (edge.selected ? edge : { ...edge, selected: true })),
  };
}

/**
 * Nothing selected; unchanged ones keep their objects.
 * @example clearSelection(selectAll(graph)).nodes.some((node) => node.selected) // false
 */
export function clearSelection(graph: Snapshot): Snapshot {
  return {
    nodes: graph.nodes.map((node) => (node.selected ? { ...node, selected: false } : node)),
    edges: graph.edges.map((edge) => (edge.selected ? { ...edge, selected: false } : edge)),
  };
}

/**
 * The selected nodes that may be copied: a workflow has one Start, so it is never copied.
 * @example copyableNodes(nodes) // [{ id: "llm_1", selected: true, … }]
 */
export function copyableNodes(nodes: EditorNode[]): EditorNode[] {
  return nodes.filter((node) => node.selected && node.data.apiType !== "start");
}

/**
 * The graph's nodes with copies of `copied` added under fresh ids, offset from their originals;
 * the copies become the selection.
 * @example pasteNodes([llm1], [llm1]).map((node) => node.id) // ["llm_1", "llm_2"]
 */
export function pasteNodes(nodes: EditorNode[], copied: EditorNode[]): EditorNode[] {
  const pasted: EditorNode[] = [];
  for (const node of copied) {
    pasted.push({
      ...node,
      id: nextNodeId(node.data.apiType, [...nodes, ...pasted]),
      selected: true,
      position: { x: node.position.x + PASTE_OFFSET, y: node.position.y + PASTE_OFFSET },
    });
  }
  return [...nodes.map((node) => (node.selected ? { ...node, selected: false } : node)), ...pasted];
}

/**
 * A new node of `type` with its default configuration at `position`, under the next free id.
 * @example newNode("llm", { x: 0, y: 0 }, nodes).id // "llm_1"
 */
export function newNode(type: NodeType, position: { x: number; y: number }, nodes: EditorNode[]): EditorNode {
  return {
    id: nextNodeId(type, nodes),
    type: "step",
    position,
    data: { apiType: type, config: defaultData(type), extra: {} },
  };
}

/**
 * The edges with one for `connection`, its id naming both ends and the source handle (so a
 * condition's cases each get their own edge to the same target).
 * @example connect([], { source: "start", target: "llm_1", sourceHandle: null, targetHandle: null })[0]?.id // "e_start_out_llm_1"
 */
export function connect(edges: Edge[], connection: Connection): Edge[] {
  const id = `e_${connection.source}_${connection.sourceHandle ?? "out"}_${connection.target}`;
  return addEdge({ ...connection, id }, edges);
}

/**
 * The graph without the node `id` and the edges that touch it.
 * @example removeNode(graph, "llm_1").edges.some((edge) => edge.target === "llm_1") // false
 */
export function removeNode(graph: Snapshot, id: string): Snapshot {
  return {
    nodes: graph.nodes.filter((node) => node.id !== id),
    edges: graph.edges.filter((edge) => edge.source !== id && edge.target !== id),
  };
}

/**
 * The nodes with node `id`'s configuration replaced (and its error settings, when given).
 * @example configureNode(nodes, "http_1", { method: "POST", url }).find((n) => n.id === "http_1")?.data.config.method // "POST"
 */
export function configureNode(
  nodes: EditorNode[],
  id: string,
  config: Record<string, unknown>,
  extra?: EditorNode["data"]["extra"],
): EditorNode[] {
  return nodes.map((node) =>
    node.id === id ? { ...node, data: { ...node.data, config, extra: extra ?? node.data.extra } } : node,
  );
}

/**
 * The messages of the issues that name a node, by node id.
 * @example issuesByNode([{ path: "nodes.0", message: "No URL", node_id: "http_1" }]).get("http_1") // ["No URL"]
 */
export function issuesByNode(issues: GraphIssue[]): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const issue of issues) {
    if (!issue.node_id) continue;
    const messages = byNode.get(issue.node_id);
    if (messages) messages.push(issue.message);
    else byNode.set(issue.node_id, [issue.message]);
  }
  return byNode;
}

const NO_ISSUES: string[] = [];

/**
 * Maps the editor's nodes to what the canvas shows (each node's issues and run status in its
 * data). A node whose object, issues and status are unchanged keeps its display object, so React
 * Flow (which compares nodes by identity) updates only the node that moved; a node that is a new
 * object with the same data (selected, moved, measured) keeps its display `data` object, so its
 * memoised card does not render again.
 * @example const display = displayNodes(); display(nodes, issuesByNode(issues), runStatuses)
 */
export function displayNodes() {
  const byNode = new WeakMap<EditorNode, { key: string; node: EditorNode }>();
  const byData = new WeakMap<EditorNode["data"], { key: string; data: EditorNode["data"] }>();
  return (
    nodes: EditorNode[],
    issues: Map<string, string[]>,
    runStatus: (id: string) => EditorNode["data"]["runStatus"],
  ): EditorNode[] =>
    nodes.map((node) => {
      const nodeIssues = issues.get(node.id) ?? NO_ISSUES;
      const status = runStatus(node.id);
      const key = `${status ?? ""}\n${nodeIssues.join("\n")}`;
      const shown = byNode.get(node);
      if (shown?.key === key) return shown.node;
      let cached = byData.get(node.data);
      if (cached?.key !== key) {
        const data: EditorNode["data"] = { ...node.data, issues: nodeIssues };
        if (status) data.runStatus = status;
        else delete data.runStatus;
        cached = { key, data };
        byData.set(node.data, cached);
      }
      const display = { ...node, data: cached.data };
      byNode.set(node, { key, node: display });
      return display;
    });
}

/**
 * Past this many nodes the minimap is drawn only when zoomed in: zoomed out, the canvas is its own
 * overview, and a thousand minimap nodes (each subscribed to React Flow's store) cost about a
 * tenth of the time to open and a sixth of the frame rate while panning (bench/studio.ts).
 */
const MINIMAP_ALWAYS_UP_TO = 500;
const MINIMAP_FROM_ZOOM = 0.3;

/**
 * Whether the canvas shows its minimap, for a graph of `nodeCount` nodes at `zoom`.
 * @example showsMinimap(1000, 0.05) // false: the canvas shows the whole graph already
 */
export function showsMinimap(nodeCount: number, zoom: number): boolean {
  return nodeCount <= MINIMAP_ALWAYS_UP_TO || zoom >= MINIMAP_FROM_ZOOM;
}

/**
 * A comparable form of a workflow's name and graph: stored graphs come back with keys
 * reordered, so both go through the editor's shape and sorted keys.
 * @example fingerprint("a", stored) === fingerprint("a", toApi(nodes, edges)) // true when unchanged
 */
export function fingerprint(name: string, graph: ApiGraph): string {
  const editor = toEditor(graph);
  return JSON.stringify({ name, graph: toApi(editor.nodes, editor.edges) }, sortedKeys);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
  );
}

/**
 * The graph issues a save refused with, to show on the nodes they name.
 * @example saveIssues(new ApiError(422, "INVALID_GRAPH", "…", [{ path: "nodes.1", message: "No URL", node_id: "http_1" }]))
 */
export function saveIssues(error: ApiError): GraphIssue[] {
  return error.details.map((detail) => {
    const nodeId = (detail as GraphIssue).node_id;
    return {
      path: detail.path,
      message: detail.message,
      ...(typeof nodeId === "string" ? { node_id: nodeId } : {}),
    };
  });
}
