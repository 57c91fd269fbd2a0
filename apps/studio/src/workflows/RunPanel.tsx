import { useState } from "react";
import { api } from "../api/client.ts";
import { Button, ErrorBox, Field, Loading, QueryError } from "../ui/ui.tsx";
import type { EditorNode } from "./graph.ts";
import { type NodeRun, type Run, streamRun, useRuns } from "./queries.ts";

export interface NodeRunView {
  status: NodeRun["status"];
  outputs?: Record<string, unknown> | null;
  error?: { code: string; message: string } | null;
  elapsed_ms?: number | null;
}

interface Props {
  workflowId: string;
  start: EditorNode | undefined;
  isDirty: boolean;
  onNodeState: (states: Record<string, NodeRunView>) => void;
}

/** Inputs form, live run (nodes light up from the event stream), each node's outputs, and history. */
export function RunPanel({ workflowId, start, isDirty, onNodeState }: Props) {
  const declared = ((start?.data.config.inputs as { name: string; type: string }[] | undefined) ?? []).filter(
    (i) => i.name,
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const [states, setStates] = useState<Record<string, NodeRunView>>({});
  const [result, setResult] = useState<{
    status: string;
    outputs: unknown;
    error: unknown;
    elapsed_ms?: unknown;
  } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [isRunning, setRunning] = useState(false);
  const runs = useRuns(workflowId);

  const show = (next: Record<string, NodeRunView>) => {
    setStates(next);
    onNodeState(next);
  };

  const run = async () => {
    setError(null);
    setResult(null);
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
        if (event === "node_started" && nodeId) current = { ...current, [nodeId]: { status: "running" } };
        if (event === "node_finished" && nodeId) {
          current = {
            ...current,
            [nodeId]: {
              status: data.status as NodeRun["status"],
              outputs: data.outputs as Record<string, unknown> | null,
              error: data.error as NodeRunView["error"],
              elapsed_ms: data.elapsed_ms as number,
            },
          };
        }
        if (event === "node_skipped" && nodeId) current = { ...current, [nodeId]: { status: "skipped" } };
        if (event === "run_finished") setResult(data as never);
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
      show(Object.fromEntries((stored.nodes ?? []).map((node) => [node.node_id, node])));
      setResult(stored);
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <section className="run-panel card" aria-label="Run">
      <h2>Run</h2>
      {isDirty ? <p className="muted">Runs use the saved version; save first to run your changes.</p> : null}
      {declared.map((input) => (
        <Field key={input.name} label={`${input.name} (${input.type})`}>
          <input
            aria-label={`Input ${input.name}`}
            value={values[input.name] ?? ""}
            onChange={(e) => setValues({ ...values, [input.name]: e.target.value })}
          />
        </Field>
      ))}
      <Button onClick={run} isBusy={isRunning}>
        Run
      </Button>
      <ErrorBox error={error} />
      {result ? (
        <div className="run-result" data-testid="run-result" data-status={result.status}>
          <strong>{result.status}</strong>
          <pre>{JSON.stringify(result.outputs ?? result.error, null, 2)}</pre>
        </div>
      ) : null}
      {Object.keys(states).length > 0 ? (
        <table className="node-runs">
          <thead>
            <tr>
              <th>Node</th>
              <th>Status</th>
              <th>ms</th>
              <th>Outputs</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(states).map(([id, state]) => (
              <tr key={id}>
                <td>{id}</td>
                <td>{state.status}</td>
                <td>{state.elapsed_ms ?? ""}</td>
                <td>
                  <code>
                    {state.error
                      ? `${state.error.code}: ${state.error.message}`
                      : JSON.stringify(state.outputs ?? null)}
                  </code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h3>History</h3>
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
