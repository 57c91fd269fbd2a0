import { type ReactNode, useId, useState } from "react";
import { usePagedList } from "../api/paged.ts";
import type { AgentDiff, WorkflowDiff } from "../api/schema.gen.ts";
import type { AppTarget } from "../apps/queries.ts";
import { targetPath, type Version } from "../apps/version-queries.ts";
import { useSession } from "../auth/session.ts";
import { Dialog } from "../ui/Dialog.tsx";
import { Button, EmptyState, ErrorBox, formatDate, Loading, LoadMore, QueryError } from "../ui/ui.tsx";
import { DiffView } from "./DiffView.tsx";
import { type Side, useVersionDiff } from "./queries.ts";

const sideLabel = (side: Side) => (side === "draft" ? "the draft" : `version ${side}`);

/**
 * The history of an agent or a workflow, in a drawer: every published version (number, notes, when,
 * who), the differences between any two of them or the draft, and restoring one into the draft
 * after a confirmation. `preview` draws a comparison another way too (the workflow's canvas).
 *
 * @example <HistoryDrawer target={{ kind: "workflow", id }} isOpen={isOpen} onClose={close} onRestore={restore} … />
 */
export function HistoryDrawer({
  target,
  isOpen,
  onClose,
  onRestore,
  isRestoring,
  restoreError,
  hasUnsavedChanges,
  preview,
}: {
  target: AppTarget;
  isOpen: boolean;
  onClose: () => void;
  onRestore: (version: number) => void;
  isRestoring: boolean;
  restoreError: unknown;
  hasUnsavedChanges: boolean;
  preview?: (from: Side, to: Side, diff: WorkflowDiff | AgentDiff) => ReactNode;
}) {
  return (
    <Dialog title="History" isOpen={isOpen} onClose={onClose} placement="side" testId="history-drawer">
      <History
        target={target}
        onRestore={onRestore}
        isRestoring={isRestoring}
        restoreError={restoreError}
        hasUnsavedChanges={hasUnsavedChanges}
        preview={preview}
      />
    </Dialog>
  );
}

function History({
  target,
  onRestore,
  isRestoring,
  restoreError,
  hasUnsavedChanges,
  preview,
}: {
  target: AppTarget;
  onRestore: (version: number) => void;
  isRestoring: boolean;
  restoreError: unknown;
  hasUnsavedChanges: boolean;
  preview: ((from: Side, to: Side, diff: WorkflowDiff | AgentDiff) => ReactNode) | undefined;
}) {
  const what = target.kind === "agent" ? "agent" : "workflow";
  const versions = usePagedList<Version>(
    [target.kind === "agent" ? "agents" : "workflows", target.id, "versions", "history"],
    `${targetPath(target)}/versions`,
    { pageSize: 20 },
  );
  const session = useSession();
  const [from, setFrom] = useState<Side | null>(null);
  const [to, setTo] = useState<Side>("draft");
  const [confirming, setConfirming] = useState<number | null>(null);
  const diff = useVersionDiff(target, from, to);
  const confirmId = useId();
  const who = (version: Version) =>
    version.created_by === null
      ? "by an API key"
      : version.created_by === session.data?.user.id
        ? "by you"
        : `by ${version.created_by}`;
  const sides: Side[] = ["draft", ...(versions.data ?? []).map((version) => version.version)];
  const parseSide = (value: string): Side => (value === "draft" ? "draft" : Number(value));

  return (
    <div className="history">
      <p className="muted">
        Every published version of this {what} is kept. Compare any two (or one with the draft), or restore
        one: its content becomes the draft, and the history keeps everything.
      </p>
      <QueryError query={versions} />
      {versions.isPending ? <Loading what="versions" /> : null}
      {versions.data?.length === 0 ? (
        <EmptyState title="No versions yet">
          <p>Publish the {what} to keep a version of it.</p>
        </EmptyState>
      ) : null}
      {versions.data?.length ? (
        <ol className="history-list" aria-label="Versions">
          {versions.data.map((version) => (
            <li key={version.version} data-testid="history-version">
              <div className="history-version-head">
                <strong>Version {version.version}</strong>
                <span className="muted">
                  {formatDate(version.created_at)} · {who(version)}
                </span>
              </div>
              {version.notes ? <p className="history-notes">{version.notes}</p> : null}
              <div className="actions">
                <Button
                  variant="secondary"
                  aria-pressed={from === version.version && to === "draft"}
                  onClick={() => {
                    setFrom(version.version);
                    setTo("draft");
                  }}
                >
                  Compare with draft
                </Button>
                <Button variant="secondary" onClick={() => setConfirming(version.version)}>
                  Restore…
                </Button>
              </div>
              {confirming === version.version ? (
                <div className="confirm-box" role="alertdialog" aria-labelledby={confirmId}>
                  <p id={confirmId}>
                    Restore version {version.version}? Its content becomes the draft (publish it to put it
                    live); the history keeps every version, and you can undo right after.
                    {hasUnsavedChanges ? <strong> Your unsaved changes will be discarded.</strong> : null}
                  </p>
                  <ErrorBox error={restoreError} />
                  <div className="actions">
                    <Button
                      variant={hasUnsavedChanges ? "danger" : "primary"}
                      isBusy={isRestoring}
                      onClick={() => onRestore(version.version)}
                    >
                      {hasUnsavedChanges
                        ? "Discard my changes and restore"
                        : `Restore version ${version.version}`}
                    </Button>
                    <Button variant="secondary" onClick={() => setConfirming(null)}>
                      Cancel
                    </Button>
                  </div>
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      <LoadMore query={versions} what="versions" />
      {versions.data?.length ? (
        <section className="history-compare" aria-label="Compare">
          <h3>Compare</h3>
          <div className="row">
            <label>
              From{" "}
              <select
                aria-label="Compare from"
                value={from === null ? "" : String(from)}
                onChange={(e) => setFrom(e.target.value === "" ? null : parseSide(e.target.value))}
              >
                <option value="">Choose…</option>
                {sides.map((side) => (
                  <option key={String(side)} value={String(side)}>
                    {side === "draft" ? "Draft" : `Version ${side}`}
                  </option>
                ))}
              </select>
            </label>
            <label>
              To{" "}
              <select
                aria-label="Compare to"
                value={String(to)}
                onChange={(e) => setTo(parseSide(e.target.value))}
              >
                {sides.map((side) => (
                  <option key={String(side)} value={String(side)}>
                    {side === "draft" ? "Draft" : `Version ${side}`}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {from === null ? <p className="muted">Choose a version to compare.</p> : null}
          {from !== null ? (
            <>
              <p className="muted" data-testid="diff-title">
                What changed from {sideLabel(from)} to {sideLabel(to)}:
              </p>
              <QueryError query={diff} />
              {diff.isPending ? <Loading what="the differences" /> : null}
              {diff.data ? <DiffView diff={diff.data} /> : null}
              {diff.data && preview ? preview(from, to, diff.data) : null}
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
