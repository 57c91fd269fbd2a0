import { navigate } from "../router.ts";
import { Button, EmptyState, Link, Loading, LoadMore, PageHeader, QueryError } from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { GettingStarted } from "./GettingStarted.tsx";
import { useAgentList } from "./queries.ts";

export function AgentsPage() {
  const agents = useAgentList();
  return (
    <>
      <PageHeader
        title="Agents"
        actions={
          <Guarded>
            <Button onClick={() => navigate("/agents/new")}>New agent</Button>
          </Guarded>
        }
      />
      <GettingStarted />
      <QueryError query={agents} />
      {agents.isPending ? <Loading what="agents" /> : null}
      {agents.data && agents.data.length === 0 ? (
        <EmptyState title="No agents yet">
          <p>An agent answers with a model of your choice, your instructions, tools and knowledge.</p>
          <Guarded>
            <Button onClick={() => navigate("/agents/new")}>Create your first agent</Button>
          </Guarded>
        </EmptyState>
      ) : null}
      <div className="list">
        {agents.data?.map((agent) => (
          <div className="card list-item" key={agent.id}>
            <div>
              <Link to={`/agents/${agent.id}`}>
                <strong>{agent.name}</strong>
              </Link>
              <div className="muted">{agent.description || agent.instructions.slice(0, 120)}</div>
            </div>
            <span className="badge">
              {agent.provider} · {agent.model}
            </span>
          </div>
        ))}
      </div>
      <LoadMore query={agents} what="agents" />
    </>
  );
}
