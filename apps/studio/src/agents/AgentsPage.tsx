import { useMutation } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { ImportDialog } from "../portability/ImportDialog.tsx";
import { type ImportFile, readImportFile } from "../portability/queries.ts";
import { useFileDrop } from "../portability/useFileDrop.ts";
import { navigate } from "../router.ts";
import {
  Button,
  EmptyState,
  ErrorBox,
  Link,
  Loading,
  LoadMore,
  NoMatches,
  PageHeader,
  QueryError,
  useListSearch,
} from "../ui/ui.tsx";
import { GettingStarted } from "./GettingStarted.tsx";
import { useAgentList, useCreateFromTemplate } from "./queries.ts";
import { AGENT_TEMPLATES } from "./templates.ts";

export function AgentsPage() {
  const search = useListSearch("agents");
  const agents = useAgentList(search.q);
  const fromTemplate = useCreateFromTemplate();
  const fileInput = useRef<HTMLInputElement>(null);
  const [importing, setImporting] = useState<ImportFile | null>(null);
  const readFile = useMutation({ mutationFn: readImportFile, onSuccess: setImporting });
  const drop = useFileDrop((file) => readFile.mutate(file));
  return (
    <div {...drop.handlers} className={`drop-zone${drop.isOver ? " is-over" : ""}`} data-testid="agent-drop">
      <ImportDialog
        kind="agent"
        file={importing}
        onClose={() => setImporting(null)}
        onImported={(id) => {
          setImporting(null);
          navigate(`/agents/${id}`);
        }}
      />
      <PageHeader
        title="Agents"
        actions={
          <>
            <Button
              variant="secondary"
              onClick={() => fileInput.current?.click()}
              isBusy={readFile.isPending}
            >
              Import
            </Button>
            <input
              ref={fileInput}
              type="file"
              accept="application/json,.json"
              hidden
              aria-label="Import an agent file"
              onChange={(e) => {
                const file = e.target.files?.[0];
                e.target.value = "";
                if (file) readFile.mutate(file);
              }}
            />
            <Button onClick={() => navigate("/agents/new")}>New agent</Button>
          </>
        }
      />
      <ErrorBox error={readFile.error} />
      <GettingStarted />
      {search.box}
      <QueryError query={agents} />
      {agents.isPending ? <Loading what="agents" /> : null}
      {search.q && agents.data?.length === 0 ? <NoMatches what="agents" q={search.q} /> : null}
      {!search.q && agents.data && agents.data.length === 0 ? (
        <EmptyState title="No agents yet">
          <p>An agent answers with a model of your choice, your instructions, tools and knowledge.</p>
          <Button onClick={() => navigate("/agents/new")}>Create your first agent</Button>
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
      <section aria-labelledby="agent-templates-title" className="templates">
        <h2 id="agent-templates-title">Start from a template</h2>
        <ErrorBox error={fromTemplate.error} />
        <ul className="template-grid">
          {AGENT_TEMPLATES.map((template) => (
            <li key={template.id} className="card template-card">
              <h3>{template.name}</h3>
              <p className="muted">{template.description}</p>
              <Button
                variant="secondary"
                isBusy={fromTemplate.isPending && fromTemplate.variables?.id === template.id}
                onClick={() =>
                  fromTemplate.mutate(template, { onSuccess: (created) => navigate(`/agents/${created.id}`) })
                }
                aria-label={`Use template ${template.name}`}
              >
                Use template
              </Button>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
