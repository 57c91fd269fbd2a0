import { type FormEvent, useState } from "react";
import type { Agent } from "../api/schema.gen.ts";
import {
  Button,
  EmptyState,
  ErrorBox,
  Field,
  formatDate,
  Loading,
  LoadMore,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { AppShortcut } from "./AppShortcut.tsx";
import type { AppTarget } from "./queries.ts";
import { usePublish, useVersions } from "./version-queries.ts";

/** What an agent and a workflow both answer about their publishing. */
export type PublishState = Pick<Agent, "published_version" | "published_at" | "has_unpublished_changes">;

/**
 * Publishing an agent or a workflow: whether the saved draft differs from what end users get, the
 * Publish button (with optional notes), the versions so far, and the app that serves it.
 * `isDirty`: the editor holds changes not saved yet, which publishing would not take.
 */
export function PublishPanel({
  target,
  state,
  isDirty = false,
}: {
  target: AppTarget;
  state: PublishState;
  isDirty?: boolean;
}) {
  const [isAsking, setAsking] = useState(false);
  const [notes, setNotes] = useState("");
  const [published, setPublished] = useState<number | null>(null);
  const publish = usePublish(target);
  const versions = useVersions(target);
  const what = target.kind === "agent" ? "agent" : "workflow";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    publish.mutate(notes, {
      onSuccess: (version) => {
        setPublished(version.version);
        setAsking(false);
        setNotes("");
      },
    });
  };

  return (
    <section className="card publish-panel" aria-labelledby={`publish-${target.id}`}>
      <div className="section-header">
        <h2 id={`publish-${target.id}`}>Publish</h2>
        {state.has_unpublished_changes ? (
          <span data-testid="unpublished-changes">
            <StatusBadge tone="neutral">Unpublished changes</StatusBadge>
          </span>
        ) : (
          <StatusBadge tone="ok">Published</StatusBadge>
        )}
      </div>
      <p className="muted" data-testid="published-version">
        {state.published_version !== null
          ? `Version ${state.published_version}, published ${state.published_at ? formatDate(state.published_at) : ""}. Apps, the trigger URL and MCP run it; the editor and its chat use the draft.`
          : `Never published: apps, the trigger URL and MCP run the saved draft of this ${what}.`}
      </p>
      {published !== null && !isAsking ? <p role="status">Published version {published}.</p> : null}
      <ErrorBox error={publish.error} />
      {isDirty ? <p className="field-hint">Save first: publishing takes the saved {what}.</p> : null}
      {isAsking ? (
        <form onSubmit={submit} aria-label="Publish a version">
          <Field label="Notes (optional)" hint="What changed, for the history.">
            <textarea
              name="notes"
              value={notes}
              maxLength={5000}
              onChange={(e) => setNotes(e.target.value)}
            />
          </Field>
          <div className="actions">
            <Guarded>
              <Button type="submit" isBusy={publish.isPending} disabled={isDirty}>
                Publish version {(state.published_version ?? 0) + 1}
              </Button>
            </Guarded>
            <Button variant="secondary" onClick={() => setAsking(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <Button onClick={() => setAsking(true)} disabled={isDirty}>
            Publish…
          </Button>
          <AppShortcut target={target} />
        </div>
      )}
      <h3>Versions</h3>
      <QueryError query={versions} />
      {versions.isPending ? <Loading what="versions" /> : null}
      {versions.data?.length === 0 ? (
        <EmptyState title="No versions yet">
          <p>Each publish keeps the {what} as it was, numbered 1, 2, 3…</p>
        </EmptyState>
      ) : null}
      {versions.data?.length ? (
        <ol className="versions" aria-label="Versions">
          {versions.data.map((version) => (
            <li key={version.version} data-testid="version">
              <strong>Version {version.version}</strong>{" "}
              <span className="muted">{formatDate(version.created_at)}</span>
              {version.notes ? <div>{version.notes}</div> : null}
            </li>
          ))}
        </ol>
      ) : null}
      <LoadMore query={versions} what="versions" />
    </section>
  );
}
