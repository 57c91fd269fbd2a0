import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import { type EditorNode, ERROR_HANDLE, NODE_TYPES } from "./graph.ts";

/**
 * One card for every node type; condition nodes get an output handle per case and one for else, and
 * a node with `on_error: "branch"` an `error` handle for the edges it follows when it fails.
 */
export const StepNode = memo(function StepNode({ id, data, selected }: NodeProps<EditorNode>) {
  const label = NODE_TYPES.find((entry) => entry.type === data.apiType)?.label ?? data.apiType;
  const cases =
    data.apiType === "condition" ? ((data.config.cases as { id: string }[] | undefined) ?? []) : [];
  const hasInput = data.apiType !== "start";
  const hasOutput = data.apiType !== "end" && data.apiType !== "condition";
  const hasErrorBranch = data.extra.on_error === "branch";
  const classes = ["step-node", `step-${data.apiType}`];
  if (selected) classes.push("is-selected");
  if (data.issues?.length) classes.push("has-issues");
  if (data.runStatus) classes.push(`run-${data.runStatus}`);
  return (
    <div className={classes.join(" ")} data-testid={`node-${id}`} data-run-status={data.runStatus ?? ""}>
      {hasInput ? <Handle type="target" position={Position.Left} /> : null}
      <div className="step-title">
        <span className="step-type">{label}</span>
        <span className="step-id">{id}</span>
      </div>
      {data.runStatus ? <div className="step-status">{data.runStatus}</div> : null}
      {data.issues?.length ? (
        <div className="step-issues" role="alert">
          {data.issues[0]}
          {data.issues.length > 1 ? ` (+${data.issues.length - 1})` : ""}
        </div>
      ) : null}
      {cases.length > 0 ? (
        <div className="step-cases">
          {[...cases.map((c) => c.id), "else"].map((handle) => (
            <div className="step-case" key={handle}>
              <span>{handle}</span>
              <Handle
                type="source"
                position={Position.Right}
                id={handle}
                data-testid={`handle-${id}-${handle}`}
              />
            </div>
          ))}
        </div>
      ) : null}
      {hasOutput ? <Handle type="source" position={Position.Right} /> : null}
      {hasErrorBranch ? (
        <div className="step-error-branch">
          <span>on error</span>
          <Handle
            type="source"
            position={Position.Bottom}
            id={ERROR_HANDLE}
            className="error-handle"
            data-testid={`handle-${id}-${ERROR_HANDLE}`}
          />
        </div>
      ) : null}
    </div>
  );
}, isSameCard);

/**
 * React Flow also hands a card its position, size, z-index and dragging state, which change for
 * every node when the canvas measures them on open and for a dragged node on every frame; the
 * card shows none of them, so only what it shows decides whether it renders again.
 */
export function isSameCard(before: NodeProps<EditorNode>, after: NodeProps<EditorNode>): boolean {
  return before.id === after.id && before.data === after.data && before.selected === after.selected;
}
