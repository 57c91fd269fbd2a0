import { useState } from "react";
import type { AgentDiff, WorkflowDiff } from "../api/schema.gen.ts";
import { Dialog } from "../ui/Dialog.tsx";
import { Button, ErrorBox } from "../ui/ui.tsx";
import { DiffView } from "./DiffView.tsx";

/** An edit conflict: the save was refused because someone saved since the editor loaded. */
export interface Conflict {
  /** What they changed: the revision the editor loaded → the one now saved. */
  theirChanges: WorkflowDiff | AgentDiff;
  /** What saving mine would change in theirs. */
  myChanges: WorkflowDiff | AgentDiff;
}

/**
 * The edit conflict's choices: see their changes, overwrite them with mine, reload theirs (mine are
 * dropped only then, on that explicit choice), or keep editing (the conflict stays until resolved).
 *
 * @example <ConflictDialog conflict={conflict} onOverwrite={…} onReload={…} onKeepEditing={…} />
 */
export function ConflictDialog({
  what,
  conflict,
  onOverwrite,
  onReload,
  onKeepEditing,
  isOverwriting,
  error,
}: {
  what: "workflow" | "agent";
  conflict: Conflict | null;
  onOverwrite: () => void;
  onReload: () => void;
  onKeepEditing: () => void;
  isOverwriting: boolean;
  error: unknown;
}) {
  const [shown, setShown] = useState<"theirs" | "mine" | null>(null);
  return (
    <Dialog
      title="Someone else changed this"
      role="alertdialog"
      isOpen={conflict !== null}
      onClose={onKeepEditing}
      testId="conflict-dialog"
      actions={
        <>
          <Button variant="secondary" onClick={() => setShown(shown === "theirs" ? null : "theirs")}>
            {shown === "theirs" ? "Hide their changes" : "See their changes"}
          </Button>
          <Button variant="danger" onClick={onOverwrite} isBusy={isOverwriting}>
            Overwrite with mine
          </Button>
          <Button
            variant="secondary"
            onClick={() => {
              if (confirm(`Drop your changes and load the ${what} as it was saved?`)) onReload();
            }}
          >
            Reload theirs
          </Button>
          <Button variant="secondary" onClick={onKeepEditing}>
            Keep editing
          </Button>
        </>
      }
    >
      <p>
        This {what} was saved by someone else (or in another tab) after you opened it, so your save was not
        applied. Your changes are still here. Look at theirs, then overwrite them with yours, or reload theirs
        and apply yours again.
      </p>
      <ErrorBox error={error} />
      {conflict && shown === "theirs" ? (
        <section aria-label="Their changes">
          <h3>Their changes</h3>
          <DiffView diff={conflict.theirChanges} />
          <h3>What overwriting would change in theirs</h3>
          <DiffView diff={conflict.myChanges} />
        </section>
      ) : null}
    </Dialog>
  );
}
