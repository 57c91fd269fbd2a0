import { type FormEvent, Fragment, useState } from "react";
import { useAgents } from "../agents/queries.ts";
import type { Agent } from "../api/schema.gen.ts";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  Field,
  formatDate,
  Link,
  Loading,
  LoadMore,
  PageHeader,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import { useWorkflows } from "../workflows/queries.ts";
import { ConversationView } from "./ConversationView.tsx";
import { EMPTY_FILTER, type LogFilter, logQuery, useConversationLogs, useRunLogs } from "./queries.ts";

type Kind = "conversations" | "runs";

const CONVERSATION_SOURCES = ["studio", "api", "app", "mcp", "workflow"];
const RUN_TRIGGERS = ["api", "hook", "app", "schedule", "mcp", "tool"];

/** Every conversation and run of the workspace, filtered, opened in place, exported. */
export function LogsPage() {
  const [kind, setKind] = useState<Kind>("conversations");
  const [draft, setDraft] = useState<LogFilter>(EMPTY_FILTER);
  const [filter, setFilter] = useState<LogFilter>(EMPTY_FILTER);
  const agents = useAgents();
  const workflows = useWorkflows();
  const set = (change: Partial<LogFilter>, isApplied = false) => {
    const next = { ...draft, ...change };
    setDraft(next);
    if (isApplied) setFilter(next);
  };
  const switchTo = (next: Kind) => {
    setKind(next);
    setDraft(EMPTY_FILTER);
    setFilter(EMPTY_FILTER);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilter(draft);
  };
  const query = logQuery(kind, filter);
  const exportHref = (format: "csv" | "jsonl") =>
    `/api/${kind}/export?${query ? `${query}&` : ""}format=${format}`;
  const targets = kind === "conversations" ? (agents.data?.data ?? []) : (workflows.data?.data ?? []);

  return (
    <div>
      <PageHeader
        title="Logs"
        actions={
          <>
            <a className="btn btn-secondary" href={exportHref("csv")} download>
              Export CSV
            </a>
            <a className="btn btn-secondary" href={exportHref("jsonl")} download>
              Export JSONL
            </a>
          </>
        }
      />
      <fieldset className="segmented">
        <legend className="visually-hidden">Show</legend>
        {(["conversations", "runs"] as const).map((option) => (
          <label key={option} className={kind === option ? "is-checked" : undefined}>
            <input type="radio" name="kind" checked={kind === option} onChange={() => switchTo(option)} />
            {option === "conversations" ? "Conversations" : "Workflow runs"}
          </label>
        ))}
      </fieldset>
      <form className="card row conversation-filter" aria-label="Filter logs" onSubmit={submit}>
        <Field label={kind === "conversations" ? "Agent" : "Workflow"}>
          <select name="target" value={draft.target} onChange={(e) => set({ target: e.target.value }, true)}>
            <option value="">All</option>
            {targets.map((target) => (
              <option key={target.id} value={target.id}>
                {target.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label={kind === "conversations" ? "Source" : "Trigger"}>
          <select name="source" value={draft.source} onChange={(e) => set({ source: e.target.value }, true)}>
            <option value="">All</option>
            {(kind === "conversations" ? CONVERSATION_SOURCES : RUN_TRIGGERS).map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Status">
          <select name="status" value={draft.status} onChange={(e) => set({ status: e.target.value }, true)}>
            <option value="">All</option>
            {(kind === "conversations"
              ? ["answered", "unanswered"]
              : ["succeeded", "failed", "cancelled", "running"]
            ).map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </Field>
        {kind === "conversations" ? (
          <Field label="Rating">
            <select
              name="feedback"
              value={draft.feedback}
              onChange={(e) => set({ feedback: e.target.value }, true)}
            >
              <option value="">All</option>
              <option value="dislike">Disliked</option>
              <option value="like">Liked</option>
              <option value="any">Rated</option>
            </select>
          </Field>
        ) : null}
        <Field label="End user">
          <input
            name="end-user"
            value={draft.endUser}
            maxLength={300}
            onChange={(e) => set({ endUser: e.target.value })}
          />
        </Field>
        <Field label="Search">
          <input
            name="q"
            type="search"
            value={draft.q}
            maxLength={200}
            onChange={(e) => set({ q: e.target.value })}
          />
        </Field>
        <Field label="From">
          <input
            name="from"
            type="date"
            value={draft.from}
            onChange={(e) => set({ from: e.target.value }, true)}
          />
        </Field>
        <Field label="To">
          <input name="to" type="date" value={draft.to} onChange={(e) => set({ to: e.target.value }, true)} />
        </Field>
        <div className="align-end">
          <Button type="submit" variant="secondary">
            Filter
          </Button>
        </div>
      </form>
      {kind === "conversations" ? (
        <ConversationLogs
          filter={filter}
          agentName={(id) => agents.data?.data.find((agent) => agent.id === id)}
        />
      ) : (
        <RunLogs
          filter={filter}
          workflowName={(id) => workflows.data?.data.find((workflow) => workflow.id === id)?.name}
        />
      )}
    </div>
  );
}

function ConversationLogs({
  filter,
  agentName,
}: {
  filter: LogFilter;
  agentName: (id: string) => Agent | undefined;
}) {
  const conversations = useConversationLogs(filter);
  const [openId, setOpenId] = useState<string | null>(null);
  return (
    <section className="card" aria-label="Conversations">
      <QueryError query={conversations} />
      {conversations.isPending ? <Loading what="conversations" /> : null}
      {conversations.data?.length === 0 ? <EmptyState title="No conversations match" /> : null}
      {conversations.data?.length ? (
        <DataTable
          label="Conversations"
          columns={["Started", "Agent", "Source", "End user", "Title", "Messages", "Ratings", ACTIONS]}
        >
          {conversations.data.map((conversation) => (
            <Fragment key={conversation.id}>
              <tr data-testid="log-conversation-row">
                <td>{formatDate(conversation.created_at)}</td>
                <td>{agentName(conversation.agent_id)?.name ?? conversation.agent_id}</td>
                <td>
                  {conversation.source}
                  {conversation.version === null ? "" : ` · v${conversation.version}`}
                </td>
                <td>{conversation.end_user?.external_id ?? <span className="muted">—</span>}</td>
                <td>{conversation.title}</td>
                <td>{conversation.message_count}</td>
                <td>
                  {conversation.likes ? (
                    <StatusBadge tone="ok">{conversation.likes} liked</StatusBadge>
                  ) : null}{" "}
                  {conversation.dislikes ? (
                    <StatusBadge tone="danger">{conversation.dislikes} disliked</StatusBadge>
                  ) : null}
                </td>
                <td>
                  <Button
                    variant="secondary"
                    aria-expanded={openId === conversation.id}
                    onClick={() => setOpenId(openId === conversation.id ? null : conversation.id)}
                  >
                    {openId === conversation.id ? "Close" : "Open"}
                  </Button>
                </td>
              </tr>
              {openId === conversation.id ? (
                <tr>
                  <td colSpan={8}>
                    <ConversationView
                      conversationId={conversation.id}
                      agent={agentName(conversation.agent_id)}
                    />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </DataTable>
      ) : null}
      <LoadMore query={conversations} what="conversations" />
    </section>
  );
}

function RunLogs({
  filter,
  workflowName,
}: {
  filter: LogFilter;
  workflowName: (id: string) => string | undefined;
}) {
  const runs = useRunLogs(filter);
  return (
    <section className="card" aria-label="Workflow runs">
      <QueryError query={runs} />
      {runs.isPending ? <Loading what="runs" /> : null}
      {runs.data?.length === 0 ? <EmptyState title="No runs match" /> : null}
      {runs.data?.length ? (
        <DataTable label="Runs" columns={["Started", "Workflow", "Trigger", "Status", "End user", "Time"]}>
          {runs.data.map((run) => (
            <tr key={run.id} data-testid="log-run-row">
              <td>{formatDate(run.started_at)}</td>
              <td>
                <Link to={`/workflows/${run.workflow_id}/runs`}>
                  {workflowName(run.workflow_id) ?? run.workflow_id}
                </Link>
              </td>
              <td>
                {run.trigger}
                {run.version === null ? "" : ` · v${run.version}`}
              </td>
              <td>
                <StatusBadge
                  tone={run.status === "succeeded" ? "ok" : run.status === "running" ? "busy" : "danger"}
                >
                  {run.status}
                </StatusBadge>
              </td>
              <td>{run.end_user_id ?? <span className="muted">—</span>}</td>
              <td>{run.elapsed_ms === null ? "—" : `${run.elapsed_ms} ms`}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <LoadMore query={runs} what="runs" />
    </section>
  );
}
