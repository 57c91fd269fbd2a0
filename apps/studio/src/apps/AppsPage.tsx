import { useState } from "react";
import { useAgents } from "../agents/queries.ts";
import {
  Button,
  DataTable,
  EmptyState,
  Link,
  Loading,
  LoadMore,
  NoMatches,
  PageHeader,
  QueryError,
  useListSearch,
} from "../ui/ui.tsx";
import { useWorkflows } from "../workflows/queries.ts";
import { NewAppForm } from "./NewAppForm.tsx";
import { type App, useAppList } from "./queries.ts";

/** The workspace's apps: what each publishes and where; "New app" publishes an agent or a workflow. */
export function AppsPage() {
  const search = useListSearch("apps");
  const apps = useAppList(search.q);
  const [isCreating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Apps"
        actions={
          <Button onClick={() => setCreating(true)} disabled={isCreating}>
            New app
          </Button>
        }
      />
      {isCreating ? <NewAppForm onCancel={() => setCreating(false)} /> : null}
      {search.box}
      <QueryError query={apps} />
      {apps.isPending ? <Loading what="apps" /> : null}
      {search.q && apps.data?.length === 0 ? <NoMatches what="apps" q={search.q} /> : null}
      {!search.q && apps.data?.length === 0 && !isCreating ? (
        <EmptyState title="No apps yet">
          <p>
            An app puts an agent or a workflow in front of your own users: a web page, a chat widget for any
            site, and an API.
          </p>
          <Button onClick={() => setCreating(true)}>Create your first app</Button>
        </EmptyState>
      ) : null}
      {apps.data?.length ? <AppTable apps={apps.data} /> : null}
      <LoadMore query={apps} what="apps" />
    </>
  );
}

function AppTable({ apps }: { apps: App[] }) {
  const agents = useAgents();
  const workflows = useWorkflows();
  const targetName = (app: App) => {
    const found =
      app.kind === "agent"
        ? agents.data?.data.find((agent) => agent.id === app.agent_id)
        : workflows.data?.data.find((workflow) => workflow.id === app.workflow_id);
    return found?.name ?? (agents.data && workflows.data ? "(deleted)" : "…");
  };
  return (
    <>
      <QueryError query={agents} />
      <QueryError query={workflows} />
      <DataTable label="Apps" columns={["Title", "Kind", "Publishes", "Slug"]}>
        {apps.map((app) => (
          <tr key={app.id} data-testid="app-row">
            <td>
              <Link to={`/apps/${app.id}`}>
                <strong>{app.title}</strong>
              </Link>
            </td>
            <td>{app.kind === "agent" ? "Agent" : "Workflow"}</td>
            <td>
              <Link to={app.kind === "agent" ? `/agents/${app.agent_id}` : `/workflows/${app.workflow_id}`}>
                {targetName(app)}
              </Link>
            </td>
            <td>
              <code>{app.slug}</code>
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
