import { Field } from "../ui/ui.tsx";
import type { EditorNode } from "./graph.ts";

type Extra = EditorNode["data"]["extra"];

/**
 * An HTTP or Tool node's approval: when on, each run pauses at the node until a person approves its
 * request (in Approvals, or the run's inspector), optionally only for so long.
 */
export function ApprovalSettings({ extra, onChange }: { extra: Extra; onChange: (extra: Extra) => void }) {
  const { requires_approval: _on, approval_timeout_s: _timeout, on_timeout: _onTimeout, ...rest } = extra;
  const isOn = extra.requires_approval === true;
  return (
    <section className="settings-section" aria-label="Approval">
      <h3>Approval</h3>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={isOn}
          onChange={(e) => onChange(e.target.checked ? { ...rest, requires_approval: true } : rest)}
        />{" "}
        Requires approval
      </label>
      {isOn ? (
        <>
          <div className="row">
            <Field label="Decide after (seconds; empty: wait)">
              <input
                type="number"
                min={1}
                max={2592000}
                value={extra.approval_timeout_s ?? ""}
                onChange={(e) => {
                  const { approval_timeout_s: _dropped, ...others } = extra;
                  onChange(
                    e.target.value === ""
                      ? others
                      : { ...others, approval_timeout_s: Number(e.target.value) },
                  );
                }}
              />
            </Field>
            <Field label="Then">
              <select
                value={extra.on_timeout ?? "reject"}
                onChange={(e) => onChange({ ...extra, on_timeout: e.target.value as "reject" | "fail" })}
              >
                <option value="reject">Reject the request</option>
                <option value="fail">Fail the run</option>
              </select>
            </Field>
          </div>
          <p className="muted">
            The run waits at this node with its request until someone approves (or edits and approves) it
            under Approvals. A rejection fails the node, and "When it still fails" below decides what the run
            does.
          </p>
        </>
      ) : null}
    </section>
  );
}
