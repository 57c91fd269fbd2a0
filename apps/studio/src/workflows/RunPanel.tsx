import { useState } from "react";
import { api } from "../api/client.ts";
import { CodeEditor } from "../editor/CodeEditor.tsx";
import { JsonTree } from "../ui/JsonTree.tsx";
import { Button, ErrorBox, Field, Link, Loading, QueryError, RunErrorText, StatusBadge } from "../ui/ui.tsx";
import type { EditorNode } from "./graph.ts";
import { type NodeRunView, RUN_TONE } from "./NodeRunInspector.tsx";
import { type NodeRun, type Run, streamRun, useRecentRuns } from "./queries.ts";

export type { NodeRunView } from "./NodeRunInspector.tsx";

interface Props {
  workflowId: string;
  start: EditorNode | undefined;
  isDirty: boolean;
  onNodeState: (states: Record<string, NodeRunView>) => void;
  /** Selects a node on the canvas, which shows its part of the run. */
  onSelectNode: (nodeId: string) => void;
  /** A run to show when the editor opens (`?run=` from the runs page). */
  initialRunId?: string | null;
}

interface RunSummary {
  status: string;
  outputs: unknown;
  error: { code: string; message: string; node_id?: string } | null;
  elapsed_ms?: number | null;
}

/**
 * Inputs form, live run (nodes light up from the event stream, each keeps its resolved inputs and
 * outputs for inspection), the run's result, and recent runs to reopen.
 */
export function RunPanel({ workflowId, start, isDirty, onNodeState, onSelectNode, initialRunId }: Props) {
  const declared = ((start?.data.config.inputs as { name: string; type: string }[] | undefined) ?? []).filter(
    (i) => i.name,
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const [states, setStates] = useState<Record<string, NodeRunView>>({});
  const [result, setResult] = useState<RunSummary | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [isRunning, setRunning] = useState(false);
  const [openedInitial, setOpenedInitial] = useState(false);
  /** The run on screen, once its id is known (a stored run, or a live one after run_started). */
  const [shownRunId, setShownRunId] = useState<string | null>(null);
  const [isReplaying, setReplaying] = useState(false);
  const runs = useRecentRuns(workflowId);

  const show = (next: Record<string, NodeRunView>) => {
    setStates(next);
    onNodeState(next);
  };

  const run = async () => {
    setError(null);
    setResult(null);
    setShownRunId(null);
    setRunning(true);
    let current: Record<string, NodeRunView> = {};
    show(current);
    try {
      const inputs = Object.fromEntries(
        declared
          .map((input) => [input.name, coerce(values[input.name] ?? "", input.type)])
          .filter(([, v]) => v !== undefined),
      );
      await streamRun(workflowId, inputs, ({ event, data }) => {
        const nodeId = data.node_id as string | undefined;
        if (event === "run_started") setShownRunId(data.run_id as string);
        if (event === "node_started" && nodeId)
          current = {
            ...current,
            [nodeId]: { status: "running", inputs: data.inputs, step: data.step as number },
          };
        if (event === "node_finished" && nodeId) {
          current = {
            ...current,
            [nodeId]: {
              status: data.status as NodeRun["status"],
              step: data.step as number,
              // node_finished carries no inputs: node_started did.
              inputs: data.inputs ?? current[nodeId]?.inputs,
              outputs: data.outputs as Record<string, unknown> | null,
              error: data.error as NodeRunView["error"],
              logs: (data.logs ?? null) as NodeRunView["logs"],
              elapsed_ms: data.elapsed_ms as number,
            },
          };
        }
        if (event === "node_skipped" && nodeId) current = { ...current, [nodeId]: { status: "skipped" } };
        // A node that requires approval: the run waits there (Approvals, or the run's inspector).
        if (event === "node_waiting" && nodeId) {
          current = { ...current, [nodeId]: { status: "waiting", inputs: data.inputs } };
        }
        if (event === "run_finished") setResult(data as unknown as RunSummary);
        show(current);
      });
      void runs.refetch();
    } catch (caught) {
      setError(caught);
    } finally {
      setRunning(false);
    }
  };

  const openRun = async (id: string) => {
    setError(null);
    try {
      const stored = await api<Run>(`/api/runs/${id}`);
      setShownRunId(stored.id);
      show(Object.fromEntries((stored.nodes ?? []).map((node) => [node.node_id, node])));
      setResult(stored);
      setValues(
        Object.fromEntries(
          Object.entries(stored.inputs ?? {}).map(([name, value]) => [
            name,
            typeof value === "string" ? value : JSON.stringify(value),
          ]),
        ),
      );
    } catch (caught) {
      setError(caught);
    }
  };

  /** A new run of the one on screen from the node it failed at, keeping the outputs recorded before it. */
  const replay = async () => {
    if (!shownRunId) return;
    setError(null);
    setReplaying(true);
    try {
      const created = await api<Run>(`/api/runs/${shownRunId}/replay`, { json: {} });
      await openRun(created.id);
      void runs.refetch();
    } catch (caught) {
      setError(caught);
    } finally {
      setReplaying(false);
    }
  };

  if (initialRunId && !openedInitial) {
    setOpenedInitial(true);
    void openRun(initialRunId);
  }

  const ordered = Object.entries(states).sort(([, a], [, b]) => (a.step ?? 1e9) - (b.step ?? 1e9));

  return (
    <section className="run-panel card" aria-label="Run">
      <div className="section-header">
        <h2>Run</h2>
        <Link to={`/workflows/${workflowId}/runs`}>All runs</Link>
      </div>
      {isDirty ? <p className="muted">Runs use the saved version; save first to run your changes.</p> : null}
      {declared.map((input) =>
        input.type === "object" || input.type === "array" ? (
          // Structured inputs are JSON: edited with brackets closed and highlighted as typed.
          <CodeEditor
            key={input.name}
            label={`Input ${input.name} (${input.type}, JSON)`}
            language="json"
            value={values[input.name] ?? ""}
            onChange={(text) => setValues({ ...values, [input.name]: text })}
            minLines={3}
          />
        ) : (
          <Field key={input.name} label={`${input.name} (${input.type})`}>
            <input
              aria-label={`Input ${input.name}`}
              value={values[input.name] ?? ""}
              onChange={(e) => setValues({ ...values, [input.name]: e.target.value })}
            />
          </Field>
        ),
      )}
      <Button onClick={run} isBusy={isRunning}>
        Run
      </Button>
      <ErrorBox error={error} />
      {result ? (
        <div className="run-result" data-testid="run-result" data-status={result.status}>
          <div className="node-run-header">
            <StatusBadge tone={RUN_TONE[result.status] ?? "neutral"}>{result.status}</StatusBadge>
            {typeof result.elapsed_ms === "number" ? (
              <span className="muted">{result.elapsed_ms} ms</span>
            ) : null}
          </div>
          {result.error ? <RunErrorText error={result.error} /> : null}
          {result.error?.node_id && shownRunId && !isRunning ? (
            <Button variant="secondary" isBusy={isReplaying} onClick={() => void replay()}>
              Replay from {result.error.node_id}
            </Button>
          ) : null}
          {result.outputs ? <JsonTree label="Run outputs" value={result.outputs} /> : null}
        </div>
      ) : null}
      {ordered.length > 0 ? (
        <>
          <p className="muted">Click a node, here or on the canvas, to see what went in and out of it.</p>
          <ol className="node-run-list">
            {ordered.map(([id, state]) => (
              <li key={id}>
                <button type="button" className="node-run-item" onClick={() => onSelectNode(id)}>
                  <code>{id}</code>
                  <StatusBadge tone={RUN_TONE[state.status] ?? "neutral"}>{state.status}</StatusBadge>
                  <span className="muted">
                    {state.elapsed_ms !== undefined && state.elapsed_ms !== null
                      ? `${state.elapsed_ms} ms`
                      : ""}
                  </span>
                </button>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <h3>Recent runs</h3>
      <QueryError query={runs} />
      {runs.isPending ? <Loading what="runs" /> : null}
      {runs.data?.data.length === 0 ? <p className="muted">No runs yet.</p> : null}
      <ul className="run-history">
        {runs.data?.data.map((entry) => (
          <li key={entry.id}>
            <button type="button" className="btn btn-secondary" onClick={() => void openRun(entry.id)}>
              {new Date(entry.started_at).toLocaleTimeString()} · {entry.status}
              {entry.elapsed_ms !== null ? ` · ${entry.elapsed_ms} ms` : ""}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function coerce(raw: string, type: string): unknown {
  if (raw === "") return undefined;
  if (type === "number") return Number(raw);
  if (type === "boolean") return raw === "true";
  if (type === "object" || type === "array") {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}
