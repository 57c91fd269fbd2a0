import { type FormEvent, useState } from "react";
import { useAgents } from "../agents/queries.ts";
import { navigate } from "../router.ts";
import { Button, Field, FormError, fieldErrors, QueryError } from "../ui/ui.tsx";
import { useWorkflows } from "../workflows/queries.ts";
import { slugProblem } from "./app-rules.ts";
import { useCreateApp } from "./queries.ts";
import { handOffSecret } from "./secret-handoff.ts";
import { slugError, withoutSlugTaken } from "./slug-error.ts";

const FIELDS = ["agent_id", "workflow_id", "title", "slug"];

/** Publishes one of the workspace's agents or workflows as a new app, then opens its page. */
export function NewAppForm({ onCancel }: { onCancel: () => void }) {
  const agents = useAgents();
  const workflows = useWorkflows();
  const create = useCreateApp();
  const [choice, setChoice] = useState("");
  const [title, setTitle] = useState("");
  const [slug, setSlug] = useState("");
  const [isSlugTouched, setSlugTouched] = useState(false);
  const error = fieldErrors(create.error);
  const slugMessage = slug && isSlugTouched ? slugProblem(slug) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const [kind, id] = choice.split(":");
    if (!id || (slug && slugProblem(slug))) return;
    create.mutate(
      {
        ...(kind === "agent" ? { agent_id: id } : { workflow_id: id }),
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(slug ? { slug } : {}),
      },
      {
        onSuccess: (created) => {
          handOffSecret(created.id, created.end_user_secret);
          navigate(`/apps/${created.id}`);
        },
      },
    );
  };

  return (
    <form className="card form-card" onSubmit={submit} aria-label="New app">
      <h2>New app</h2>
      <QueryError query={agents} />
      <QueryError query={workflows} />
      <FormError error={withoutSlugTaken(create.error)} fields={FIELDS} />
      <Field
        label="Publish"
        error={error?.fieldMessage("agent_id") ?? error?.fieldMessage("workflow_id")}
        hint="The agent (a chat) or workflow (a form) your users will reach."
      >
        <select name="target" value={choice} onChange={(e) => setChoice(e.target.value)} required>
          <option value="">Choose an agent or a workflow…</option>
          <optgroup label="Agents">
            {agents.data?.data.map((agent) => (
              <option key={agent.id} value={`agent:${agent.id}`}>
                {agent.name}
              </option>
            ))}
          </optgroup>
          <optgroup label="Workflows">
            {workflows.data?.data.map((workflow) => (
              <option key={workflow.id} value={`workflow:${workflow.id}`}>
                {workflow.name}
              </option>
            ))}
          </optgroup>
        </select>
      </Field>
      <div className="row">
        <Field
          label="Title"
          error={error?.fieldMessage("title")}
          hint="Empty: the agent's or workflow's name."
        >
          <input name="title" value={title} maxLength={100} onChange={(e) => setTitle(e.target.value)} />
        </Field>
        <Field
          label="Slug"
          error={slugMessage ?? slugError(create.error)}
          hint="The app's address (/a/slug). Empty: made from the name."
        >
          <input
            name="slug"
            value={slug}
            maxLength={63}
            onChange={(e) => setSlug(e.target.value)}
            onBlur={() => setSlugTouched(true)}
          />
        </Field>
      </div>
      <div className="actions">
        <Button type="submit" isBusy={create.isPending}>
          Create app
        </Button>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
