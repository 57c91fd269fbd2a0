import { Field } from "../ui/ui.tsx";
import { type EditorNode, ERROR_HANDLE, type RetryPolicy } from "./graph.ts";

type Extra = EditorNode["data"]["extra"];

/** What a new retry starts from: three attempts, a second apart and doubling. */
const DEFAULT_RETRY: Required<RetryPolicy> = {
  max_attempts: 3,
  backoff: "exponential",
  initial_ms: 1_000,
  max_ms: 60_000,
};

/**
 * A node's own settings for failures (LLM, Code, HTTP, Tool): how often it is tried and what the
 * run does when it still fails (fail, continue with a default output, or follow its error branch).
 */
export function FailureSettings({ extra, onChange }: { extra: Extra; onChange: (extra: Extra) => void }) {
  const retry = extra.retry ? { ...DEFAULT_RETRY, ...extra.retry } : undefined;
  const setRetry = (next: Partial<RetryPolicy> | undefined) => {
    const { retry: _dropped, ...rest } = extra;
    onChange(next === undefined ? rest : { ...rest, retry: { ...DEFAULT_RETRY, ...retry, ...next } });
  };
  const number = (value: string, fallback: number) => (value === "" ? fallback : Number(value));
  return (
    <section className="settings-section" aria-label="Retries and errors">
      <h3>Retries and errors</h3>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={retry !== undefined}
          onChange={(e) => setRetry(e.target.checked ? DEFAULT_RETRY : undefined)}
        />{" "}
        Retry when it fails
      </label>
      {retry ? (
        <>
          <div className="row">
            <Field label="Attempts in all">
              <input
                type="number"
                min={1}
                max={10}
                value={retry.max_attempts}
                onChange={(e) => setRetry({ max_attempts: number(e.target.value, 1) })}
              />
            </Field>
            <Field label="Backoff">
              <select
                value={retry.backoff}
                onChange={(e) => setRetry({ backoff: e.target.value as "fixed" | "exponential" })}
              >
                <option value="exponential">Exponential (doubling)</option>
                <option value="fixed">Fixed</option>
              </select>
            </Field>
          </div>
          <div className="row">
            <Field label="First wait (ms)">
              <input
                type="number"
                min={0}
                max={600000}
                value={retry.initial_ms}
                onChange={(e) => setRetry({ initial_ms: number(e.target.value, 0) })}
              />
            </Field>
            <Field label="Longest wait (ms)">
              <input
                type="number"
                min={0}
                max={3600000}
                value={retry.max_ms}
                onChange={(e) => setRetry({ max_ms: number(e.target.value, 0) })}
              />
            </Field>
          </div>
          <p className="muted">
            A 429 or 5xx that says Retry-After waits that long instead, up to the longest wait.
          </p>
        </>
      ) : null}
      <Field label="When it still fails">
        <select
          value={extra.on_error ?? "fail"}
          onChange={(e) => {
            const onError = e.target.value as "fail" | "continue" | "branch";
            onChange({
              ...extra,
              on_error: onError,
              ...(onError === "continue" ? { default_output: extra.default_output ?? {} } : {}),
            });
          }}
        >
          <option value="fail">Fail the run</option>
          <option value="continue">Continue with a default output</option>
          <option value="branch">Follow the error branch</option>
        </select>
      </Field>
      {extra.on_error === "branch" ? (
        <p className="muted">
          Connect the node's <code>{ERROR_HANDLE}</code> handle to what runs on failure; it can read{" "}
          <code>{"{{node.error.code}}"}</code> and <code>{"{{node.error.message}}"}</code>. The node's other
          edges are skipped when it fails.
        </p>
      ) : null}
    </section>
  );
}
