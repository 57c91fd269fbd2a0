import { JsonTree } from "../ui/JsonTree.tsx";
import { Button, MissingKey, StatusBadge, type Tone } from "../ui/ui.tsx";
import type { NodeLogs, NodeRun } from "./queries.ts";

/** What the studio knows of one node in a run: from the live event stream or a stored run. */
export interface NodeRunView {
  status: NodeRun["status"];
  step?: number | null;
  inputs?: unknown;
  outputs?: Record<string, unknown> | null;
  error?: { code: string; message: string } | null;
  logs?: NodeLogs | null;
  elapsed_ms?: number | null;
  attempts?: NodeRun["attempts"];
}

/** "Replay from here" on a finished run's node: a new run that keeps the outputs recorded before it. */
export interface ReplayAction {
  onReplay: () => void;
  isReplaying: boolean;
}

export const RUN_TONE: Record<string, Tone> = {
  running: "busy",
  waiting: "busy",
  succeeded: "ok",
  failed: "danger",
  skipped: "neutral",
  cancelled: "neutral",
};

/**
 * One node of a run: status, duration, its inputs as resolved (templates filled in), its outputs,
 * its error, each attempt under a retry, what a Code node printed (stdout and stderr, failed runs
 * too) and, for a finished run, "Replay from here".
 */
export function NodeRunInspector({
  nodeId,
  state,
  replay,
}: {
  nodeId: string;
  state: NodeRunView;
  replay?: ReplayAction | undefined;
}) {
  // A tool node's run_code answers its stdout as an output; a Code node's logs come with the run.
  const toolStdout = typeof state.outputs?.stdout === "string" ? state.outputs.stdout : "";
  const stdout = state.logs?.stdout || toolStdout;
  const stderr = state.logs?.stderr ?? "";
  return (
    <section className="node-run card" aria-label={`Run of ${nodeId}`} data-testid="node-run">
      <div className="node-run-header">
        <h3>
          <code>{nodeId}</code> in this run
        </h3>
        <StatusBadge tone={RUN_TONE[state.status] ?? "neutral"}>{state.status}</StatusBadge>
        {state.elapsed_ms !== undefined && state.elapsed_ms !== null ? (
          <span className="muted" data-testid="node-run-duration">
            {state.elapsed_ms} ms
          </span>
        ) : null}
        {state.step ? <span className="muted">step {state.step}</span> : null}
      </div>
      {state.error?.code === "provider_not_configured" ? <MissingKey message={state.error.message} /> : null}
      {state.error && state.error.code !== "provider_not_configured" ? (
        <div className="error-box" role="alert" data-testid="node-run-error">
          <span>
            <strong>{state.error.code}</strong>: {state.error.message}
          </span>
        </div>
      ) : null}
      {state.status === "skipped" ? <p className="muted">Skipped: its branch was not taken.</p> : null}
      {state.attempts && state.attempts.length > 0 ? (
        <div className="json-view" data-testid="node-run-attempts">
          <strong>Attempts</strong>
          <ol>
            {state.attempts.map((attempt) => (
              <li key={attempt.attempt}>
                {new Date(attempt.started_at).toLocaleTimeString()} · {attempt.elapsed_ms} ms ·{" "}
                {attempt.error ? (
                  <>
                    <strong>{attempt.error.code}</strong>: {attempt.error.message}
                  </>
                ) : (
                  "succeeded"
                )}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {replay && state.status !== "running" && state.status !== "skipped" ? (
        <div>
          <Button variant="secondary" isBusy={replay.isReplaying} onClick={replay.onReplay}>
            Replay from here
          </Button>{" "}
          <span className="muted">
            A new run with the same inputs: the nodes before this one keep their outputs, this one and those
            after it run again.
          </span>
        </div>
      ) : null}
      {state.inputs !== undefined && state.inputs !== null ? (
        <JsonTree label="Inputs" value={state.inputs} />
      ) : null}
      {state.outputs ? <JsonTree label="Outputs" value={state.outputs} /> : null}
      {stdout || stderr ? (
        <div className="json-view" data-testid="node-run-logs">
          <strong>Logs{state.logs?.truncated ? " (cut: the start and the end are shown)" : ""}</strong>
          {stdout ? (
            <>
              <span className="field-label">stdout</span>
              <pre className="logs" data-testid="node-run-stdout">
                {stdout}
              </pre>
            </>
          ) : null}
          {stderr ? (
            <>
              <span className="field-label">stderr</span>
              <pre className="logs logs-stderr" data-testid="node-run-stderr">
                {stderr}
              </pre>
            </>
          ) : null}
        </div>
      ) : state.logs ? (
        <p className="muted" data-testid="node-run-logs">
          Printed nothing.
        </p>
      ) : null}
      {state.status === "running" ? <p className="muted">Running…</p> : null}
    </section>
  );
}
