import { indexGraph, type RecordedNode, reachableFrom } from "@app/workflow";
import type { BuilderDb } from "../../db/index.ts";
import { WorkflowErrors } from "../errors.ts";
import { findWorkflow } from "../find-workflow.ts";
import type { RunRow, WorkflowRow } from "../schema.ts";
import { findNodeRuns, findRun } from "./run-store.ts";
import { recordedNodes } from "./workflow-runner.ts";

/** What a replay runs: the original run, its workflow with the run's own graph, and the outcomes it keeps. */
export interface ReplayPlan {
  original: RunRow;
  /** The workflow row carrying the graph the original ran (its version's, or the draft of that day). */
  workflow: WorkflowRow;
  fromNode: string;
  recorded: Map<string, RecordedNode>;
}

/**
 * Plans the replay of a finished run from `fromNode` (default: the node it failed at): the recorded
 * outcomes of every node that is not `fromNode` nor downstream of it are kept, the rest run again,
 * on the graph and inputs the original ran with. Throws RUN_NOT_FOUND for another workspace's run,
 * RUN_STILL_RUNNING, and REPLAY_NODE_UNKNOWN / REPLAY_NODE_NOT_REACHED / REPLAY_FROM_NODE_REQUIRED
 * for a node the replay cannot start from.
 *
 * @example const plan = await planReplay(db, workspaceId, "run_01…", "summarise");
 */
export async function planReplay(
  db: BuilderDb,
  workspaceId: string,
  runId: string,
  fromNode: string | undefined,
): Promise<ReplayPlan> {
  const original = await findRun(db, workspaceId, runId);
  if (!original) throw WorkflowErrors.RUN_NOT_FOUND();
  if (original.status === "running" || original.status === "waiting")
    throw WorkflowErrors.RUN_STILL_RUNNING();
  const from = fromNode ?? original.error?.node_id;
  if (from === undefined) throw WorkflowErrors.REPLAY_FROM_NODE_REQUIRED({ param: "from_node" });
  const index = indexGraph(original.graph);
  const node = index.nodes.get(from);
  if (!node) {
    throw WorkflowErrors.REPLAY_NODE_UNKNOWN({
      message: `The run's graph has no node ${from}.`,
      param: "from_node",
    });
  }
  const recorded = recordedNodes(await findNodeRuns(db, original.id));
  const isReached =
    node.type === "start" || (index.incoming.get(from) ?? []).some((edge) => recorded.has(edge.source));
  if (!isReached) {
    throw WorkflowErrors.REPLAY_NODE_NOT_REACHED({
      message: `Nothing upstream of ${from} was recorded in this run, so there is nothing to replay it from; pick a node the run reached.`,
      param: "from_node",
    });
  }
  for (const rerun of reachableFrom(index, from)) recorded.delete(rerun);
  const workflow = await findWorkflow(db, workspaceId, original.workflowId);
  if (!workflow) throw WorkflowErrors.RUN_NOT_FOUND();
  return { original, workflow: { ...workflow, graph: original.graph }, fromNode: from, recorded };
}
