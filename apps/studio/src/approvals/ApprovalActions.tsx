import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/client.ts";
import type { WorkflowRun } from "../api/schema.gen.ts";
import { Button, ErrorBox, Field } from "../ui/ui.tsx";

/**
 * Approve, reject or edit-then-approve one node a waiting run waits at. The request goes on as
 * proposed unless edited (a JSON object, the whole request of the node's type).
 */
export function ApprovalActions({
  runId,
  nodeId,
  input,
  onDecided,
}: {
  runId: string;
  nodeId: string;
  input: unknown;
  onDecided?: (run: WorkflowRun) => void;
}) {
  const client = useQueryClient();
  const [isEditing, setEditing] = useState(false);
  const [text, setText] = useState(() => JSON.stringify(input ?? {}, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  const decide = useMutation({
    mutationFn: (body: { decision: "approve" | "reject"; input?: Record<string, unknown> }) =>
      api<WorkflowRun>(`/api/runs/${runId}/approvals`, { json: { node_id: nodeId, ...body } }),
    onSuccess: (run) => {
      void client.invalidateQueries({ queryKey: ["approvals"] });
      void client.invalidateQueries({ queryKey: ["run", runId] });
      void client.invalidateQueries({ queryKey: ["runs", run.workflow_id] });
      onDecided?.(run);
    },
  });
  const approveEdited = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      setParseError(`Not JSON: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      setParseError("The input must be a JSON object.");
      return;
    }
    setParseError(null);
    decide.mutate({ decision: "approve", input: parsed as Record<string, unknown> });
  };
  const isBusy = (decision: "approve" | "reject") =>
    decide.isPending && decide.variables?.decision === decision;
  return (
    <div className="approval-actions" data-testid="approval-actions">
      {isEditing ? (
        <Field label="Input to send (JSON)" error={parseError ?? undefined}>
          <textarea
            className="json-input"
            rows={Math.min(16, Math.max(4, text.split("\n").length))}
            value={text}
            spellCheck={false}
            onChange={(e) => setText(e.target.value)}
          />
        </Field>
      ) : null}
      <div className="row">
        {isEditing ? (
          <Button isBusy={isBusy("approve")} onClick={approveEdited}>
            Approve with edits
          </Button>
        ) : (
          <Button isBusy={isBusy("approve")} onClick={() => decide.mutate({ decision: "approve" })}>
            Approve
          </Button>
        )}
        <Button
          variant="danger"
          isBusy={isBusy("reject")}
          onClick={() => decide.mutate({ decision: "reject" })}
        >
          Reject
        </Button>
        <Button variant="secondary" aria-pressed={isEditing} onClick={() => setEditing(!isEditing)}>
          {isEditing ? "Cancel edit" : "Edit input"}
        </Button>
      </div>
      <ErrorBox error={decide.error} />
    </div>
  );
}
