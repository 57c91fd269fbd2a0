import { type ApiError, defineErrors } from "@app/http";
import type { GraphIssue } from "@app/workflow";

export const WorkflowErrors = defineErrors({
  WORKFLOW_NOT_FOUND: { status: 404, message: "No workflow with this id." },
  RUN_NOT_FOUND: { status: 404, message: "No run with this id." },
  INVALID_GRAPH: { status: 422, message: "The workflow graph is invalid." },
  INVALID_INPUTS: { status: 422, message: "The run's inputs do not match the start node." },
  INVALID_ERROR_WORKFLOW: {
    status: 422,
    message: "error_workflow_id must name another workflow of this workspace.",
  },
  RUN_NOT_RUNNING: { status: 409, message: "The run has already finished." },
  RUN_NOT_WAITING: {
    status: 409,
    message: "The run is not waiting for an approval (it is running, or it has finished).",
  },
  APPROVAL_NOT_PENDING: {
    status: 409,
    message: "This node of the run has no pending approval (none was asked for, or it was decided).",
  },
  INVALID_APPROVAL_INPUT: {
    status: 422,
    message: "The edited input is not a valid request for this node.",
  },
  RUN_STILL_RUNNING: {
    status: 409,
    message: "The run is still running or waiting for an approval; replay it once it has finished.",
  },
  REPLAY_FROM_NODE_REQUIRED: {
    status: 422,
    message: "The run did not fail at a node; name the node to replay from in from_node.",
  },
  REPLAY_NODE_UNKNOWN: { status: 422, message: "The run's graph has no such node." },
  REPLAY_NODE_NOT_REACHED: { status: 422, message: "The run never reached this node." },
});

export const HookErrors = defineErrors({
  HOOK_NOT_FOUND: { status: 404, message: "There is no trigger with this URL." },
  HOOK_BODY_NOT_OBJECT: {
    status: 422,
    message: "The body must be a JSON object; its fields become the run's inputs.",
  },
});

export function graphError(issues: readonly GraphIssue[]): ApiError {
  const first = issues[0];
  return WorkflowErrors.INVALID_GRAPH({
    message: `The workflow graph is invalid: ${first?.message ?? "unknown problem"}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
    ...(first ? { param: `graph.${first.path}` } : {}),
    details: issues.map((issue) => ({
      path: `graph.${issue.path}`,
      message: issue.message,
      code: issue.code,
      ...(issue.node_id ? { node_id: issue.node_id } : {}),
      ...(issue.edge_id ? { edge_id: issue.edge_id } : {}),
    })),
  });
}
