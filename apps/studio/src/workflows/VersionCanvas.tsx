import { useQuery } from "@tanstack/react-query";
import {
  Background,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  ReactFlowProvider,
} from "@xyflow/react";
import { memo, useMemo } from "react";
import { api } from "../api/client.ts";
import type { WorkflowDiff, WorkflowVersion } from "../api/schema.gen.ts";
import type { Side } from "../history/queries.ts";
import { Loading, QueryError } from "../ui/ui.tsx";
import { type ApiGraph, NODE_TYPES } from "./graph.ts";
import { useWorkflow } from "./queries.ts";

type Status = "same" | "changed" | "gone";
type PreviewNode = Node<{ label: string; status: Status }, "preview">;

const STATUS_TEXT: Record<Status, string> = { same: "", changed: "changed", gone: "not in the other" };

const PreviewStep = memo(function PreviewStep({ id, data }: NodeProps<PreviewNode>) {
  return (
    <div
      className={`step-node preview-node preview-${data.status}`}
      data-testid={`preview-node-${id}`}
      data-status={data.status}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="step-title">
        <span className="step-type">{data.label}</span>
        <span className="step-id">{id}</span>
      </div>
      {data.status !== "same" ? <div className="step-status">{STATUS_TEXT[data.status]}</div> : null}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const previewTypes = { preview: PreviewStep };
const FIT = { padding: 0.15 };
const PRO_OPTIONS = { hideAttribution: true };

/**
 * One side of a comparison drawn read-only on a canvas of its own, its nodes that the other side
 * changed or does not have highlighted.
 *
 * @example <VersionCanvas workflowId={id} side={2} other="draft" diff={diff} />
 */
export function VersionCanvas({
  workflowId,
  side,
  other,
  diff,
}: {
  workflowId: string;
  side: Side;
  other: Side;
  diff: WorkflowDiff;
}) {
  const draft = useWorkflow(workflowId);
  const version = useQuery({
    queryKey: ["workflows", workflowId, "versions", "one", side],
    queryFn: () => api<WorkflowVersion>(`/api/workflows/${workflowId}/versions/${side}`),
    enabled: side !== "draft",
    staleTime: Number.POSITIVE_INFINITY,
  });
  const graph = (side === "draft" ? draft.data?.graph : version.data?.graph) as ApiGraph | undefined;
  const { nodes, edges } = useMemo(() => {
    if (!graph) return { nodes: [], edges: [] };
    const changed = new Set(diff.nodes.changed.map((node) => node.id));
    const gone = new Set(diff.nodes.removed.map((node) => (node as { id: string }).id));
    return {
      nodes: graph.nodes.map(
        (node): PreviewNode => ({
          id: node.id,
          type: "preview",
          position: node.position,
          draggable: false,
          connectable: false,
          data: {
            label: NODE_TYPES.find((entry) => entry.type === node.type)?.label ?? node.type,
            status: gone.has(node.id) ? "gone" : changed.has(node.id) ? "changed" : "same",
          },
        }),
      ),
      edges: graph.edges.map((edge) => ({ id: edge.id, source: edge.source, target: edge.target })),
    };
  }, [graph, diff]);
  const name = side === "draft" ? "The draft" : `Version ${side}`;
  return (
    <section className="version-canvas" aria-label={`${name} on the canvas`}>
      <h4>
        {name} on the canvas (read-only)
        <span className="muted">
          {" "}
          · highlighted: changed in {other === "draft" ? "the draft" : `version ${other}`}, or not there
        </span>
      </h4>
      <QueryError query={side === "draft" ? draft : version} />
      {!graph ? <Loading what="the graph" /> : null}
      {graph ? (
        <div className="version-canvas-flow">
          <ReactFlowProvider>
            <ReactFlow
              nodes={nodes}
              edges={edges}
              nodeTypes={previewTypes}
              fitView
              fitViewOptions={FIT}
              nodesDraggable={false}
              nodesConnectable={false}
              elementsSelectable={false}
              proOptions={PRO_OPTIONS}
            >
              <Background />
            </ReactFlow>
          </ReactFlowProvider>
        </div>
      ) : null}
    </section>
  );
}
