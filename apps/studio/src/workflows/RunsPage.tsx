import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { api } from "../api/client.ts";
import { ApprovalActions } from "../approvals/ApprovalActions.tsx";
import { JsonTree } from "../ui/JsonTree.tsx";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  ErrorBox,
  formatDate,
  Link,
  Loading,
  LoadMore,
  PageHeader,
  QueryError,
  RunErrorText,
  StatusBadge,
} from "../ui/ui.tsx";
import { NodeRunInspector, RUN_TONE } from "./NodeRunInspector.tsx";
import { RUN_FILTERS, type Run, type RunFilter, useRunList, useWorkflow } from "./queries.ts";

/** A workflow's runs: filter by status, open one to inspect each node, or run it again with the same inputs. */
export function RunsPage({ workflowId }: { workflowId: string }) {
  const workflow = useWorkflow(workflowId);
  const client = useQueryClient();
  const [filter, setFilter] = useState<RunFilter>("all");
  const [openId, setOpenId] = useState<string | null>(null);
  const runs = useRunList(workflowId, filter);
  const rerun = useMutation({
    mutationFn: (inputs: Record<string, unknown>) =>
      api<Run>(`/api/workflows/${workflowId}/runs`, { json: { inputs } }),
    onSuccess: (created) => {
      setOpenId(created.id);
      void client.invalidateQueries({ queryKey: ["runs", workflowId] });
    },
  });
  const shown = runs.data ?? [];

  return (
    <>
      <p className="breadcrumb">
        <Link to={`/workflows/${workflowId}`}>← {workflow.data?.name ?? "Workflow"}</Link>
      </p>
      <PageHeader title={`Runs${workflow.data ? ` of ${workflow.data.name}` : ""}`} />
      <fieldset className="segmented">
        <legend className="field-label">Status</legend>
        {RUN_FILTERS.map((option) => (
          <label key={option} className={filter === option ? "is-checked" : undefined}>
            <input
              type="radio"
              name="run-status"
              value={option}
              checked={filter === option}
              onChange={() => setFilter(option)}
            />
            {option === "all" ? "All" : option[0]?.toUpperCase() + option.slice(1)}
          </label>
        ))}
      </fieldset>
      <QueryError query={runs} />
      <ErrorBox error={rerun.error} />
      {runs.isPending ? <Loading what="runs" /> : null}
      {runs.data && shown.length === 0 ? (
        <EmptyState title={filter === "all" ? "No runs yet" : `No ${filter} runs`}>
          <p>
            {filter === "all"
              ? "Run the workflow from the editor, by API or its trigger URL."
              : "Try another status."}
          </p>
        </EmptyState>
      ) : null}
      {shown.length > 0 ? (
        <DataTable label="Runs" columns={["Started", "Status", "Trigger", "Duration", "Inputs", ACTIONS]}>
          {shown.map((run) => (
            <Fragment key={run.id}>
              <tr data-testid="run-row" data-status={run.status} data-trigger={run.trigger}>
                <td>{formatDate(run.started_at)}</td>
                <td>
                  <StatusBadge tone={RUN_TONE[run.status] ?? "neutral"}>{run.status}</StatusBadge>
                </td>
                <td title={run.scheduled_for ? `Scheduled for ${formatDate(run.scheduled_for)}` : undefined}>
                  {run.trigger}
                </td>
                <td>{run.elapsed_ms !== null ? `${run.elapsed_ms} ms` : "—"}</td>
                <td className="run-inputs">
                  <code>{JSON.stringify(run.inputs)}</code>
                </td>
                <td className="actions">
                  <Button
                    variant="secondary"
                    aria-expanded={openId === run.id}
                    onClick={() => setOpenId(openId === run.id ? null : run.id)}
                  >
                    {openId === run.id ? "Close" : "Inspect"}
                  </Button>
                  <Link className="btn btn-secondary" to={`/workflows/${workflowId}?run=${run.id}`}>
                    On the canvas
                  </Link>
                  <Button
                    variant="secondary"
                    isBusy={rerun.isPending && rerun.variables === run.inputs}
                    onClick={() => rerun.mutate(run.inputs)}
                  >
                    Re-run
                  </Button>
                </td>
              </tr>
              {openId === run.id ? (
                <tr>
                  <td colSpan={6}>
                    <RunDetail
                      runId={run.id}
                      onReplayed={(created) => {
                        setOpenId(created.id);
                        void client.invalidateQueries({ queryKey: ["runs", workflowId] });
                      }}
                    />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </DataTable>
      ) : null}
      <LoadMore query={runs} what="runs" />
    </>
  );
}

function RunDetail({ runId, onReplayed }: { runId: string; onReplayed: (created: Run) => void }) {
  const run = useQuery({ queryKey: ["run", runId], queryFn: () => api<Run>(`/api/runs/${runId}`) });
  const [nodeId, setNodeId] = useState<string | null>(null);
  const replay = useMutation({
    mutationFn: (fromNode: string) =>
      api<Run>(`/api/runs/${runId}/replay`, { json: { from_node: fromNode } }),
    onSuccess: onReplayed,
  });
  const nodes = run.data?.nodes ?? [];
  const chosen =
    nodes.find((node) => node.node_id === nodeId) ?? nodes.find((node) => node.status === "failed");
  return (
    <div className="run-detail" data-testid="run-detail">
      <QueryError query={run} />
      <ErrorBox error={replay.error} />
      {run.data?.replay_of ? (
        <p className="muted">
          Replay of <code>{run.data.replay_of}</code>
        </p>
      ) : null}
      {run.isPending ? <Loading what="the run" /> : null}
      {run.data ? (
        <div className="run-detail-grid">
          <div>
            {run.data.error ? <RunErrorText error={run.data.error} /> : null}
            {run.data.outputs ? <JsonTree label="Run outputs" value={run.data.outputs} /> : null}
            {run.data.status === "waiting"
              ? (run.data.pending ?? []).map((pending) => (
                  <section
                    key={pending.node_id}
                    className="card approval-item"
                    aria-label={`Approval of ${pending.node_id}`}
                  >
                    <p>
                      Waiting for approval: <strong>{pending.title ?? pending.node_id}</strong>
                    </p>
                    <JsonTree label="Request" value={pending.input} />
                    <ApprovalActions runId={runId} nodeId={pending.node_id} input={pending.input} />
                  </section>
                ))
              : null}
            <ol className="node-run-list">
              {nodes.map((node) => (
                <li key={node.node_id}>
                  <button
                    type="button"
                    className="node-run-item"
                    aria-pressed={chosen?.node_id === node.node_id}
                    onClick={() => setNodeId(node.node_id)}
                  >
                    <code>{node.node_id}</code>
                    <StatusBadge tone={RUN_TONE[node.status] ?? "neutral"}>{node.status}</StatusBadge>
                    <span className="muted">{node.elapsed_ms !== null ? `${node.elapsed_ms} ms` : ""}</span>
                  </button>
                </li>
              ))}
            </ol>
          </div>
          {chosen ? (
            <NodeRunInspector
              nodeId={chosen.node_id}
              state={chosen}
              replay={
                run.data.status === "running" || run.data.status === "waiting"
                  ? undefined
                  : { onReplay: () => replay.mutate(chosen.node_id), isReplaying: replay.isPending }
              }
            />
          ) : (
            <p className="muted">Pick a node.</p>
          )}
        </div>
      ) : null}
    </div>
  );
}
