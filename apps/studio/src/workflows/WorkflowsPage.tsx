import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { useDefaultModel } from "../agents/queries.ts";
import { api } from "../api/client.ts";
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
import { useWorkflowList, type Workflow } from "./queries.ts";
import { WORKFLOW_TEMPLATES, type WorkflowTemplate, withModel } from "./templates.ts";

const STARTER_GRAPH = {
  nodes: [
    {
      id: "start",
      type: "start",
      position: { x: 0, y: 0 },
      data: { inputs: [{ name: "question", type: "string", required: true }] },
    },
    {
      id: "end_1",
      type: "end",
      position: { x: 320, y: 0 },
      data: { outputs: [{ name: "answer", value: "{{start.question}}" }] },
    },
  ],
  edges: [{ id: "e_start_end_1", source: "start", target: "end_1" }],
};

export function WorkflowsPage() {
  const search = useListSearch("workflows");
  const workflows = useWorkflowList(search.q);
  const client = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const create = useMutation({
    mutationFn: () =>
      api<Workflow>("/api/workflows", { json: { name: "Untitled workflow", graph: STARTER_GRAPH } }),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: ["workflows"] });
      navigate(`/workflows/${created.id}`);
    },
  });
  const defaults = useDefaultModel();
  const fromTemplate = useMutation({
    mutationFn: (template: WorkflowTemplate) =>
      api<Workflow>("/api/workflows", {
        json: {
          name: template.name,
          description: template.description,
          graph: withModel(template.graph, defaults),
        },
      }),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: ["workflows"] });
      navigate(`/workflows/${created.id}`);
    },
  });
  const [importing, setImporting] = useState<ImportFile | null>(null);
  const readFile = useMutation({ mutationFn: readImportFile, onSuccess: setImporting });
  const drop = useFileDrop((file) => readFile.mutate(file));
  return (
    <div
      {...drop.handlers}
      className={`drop-zone${drop.isOver ? " is-over" : ""}`}
      data-testid="workflow-drop"
    >
      <ImportDialog
        kind="workflow"
        file={importing}
        onClose={() => setImporting(null)}
        onImported={(id) => {
          setImporting(null);
          navigate(`/workflows/${id}`);
        }}
      />
      <PageHeader
        title="Workflows"
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
              aria-label="Import a workflow file"
              onChange={(e) => {
                const file = e.target.files?.[0];
                e.target.value = "";
                if (file) readFile.mutate(file);
              }}
            />
            <Button onClick={() => create.mutate()} isBusy={create.isPending}>
              New workflow
            </Button>
          </>
        }
      />
      {search.box}
      <QueryError query={workflows} />
      <p className="muted drop-hint">
        Drop a workflow file here to import it: one exported from a workflow, or an n8n workflow (its JSON, as
        n8n&apos;s Download writes it).
      </p>
      <ErrorBox error={create.error ?? readFile.error ?? fromTemplate.error} />
      {workflows.isPending ? <Loading what="workflows" /> : null}
      {search.q && workflows.data?.length === 0 ? <NoMatches what="workflows" q={search.q} /> : null}
      {!search.q && workflows.data && workflows.data.length === 0 ? (
        <EmptyState title="No workflows yet">
          <p>
            Draw a flow of Start, LLM, Code, HTTP, Condition, Tool and End nodes, then run it or call it by
            URL.
          </p>
        </EmptyState>
      ) : null}
      <div className="list">
        {workflows.data?.map((workflow) => (
          <div className="card list-item" key={workflow.id} data-testid="workflow-row">
            <Link to={`/workflows/${workflow.id}`}>
              <strong>{workflow.name}</strong>
            </Link>
            <span className="badge">{workflow.graph.nodes.length} nodes</span>
          </div>
        ))}
      </div>
      <LoadMore query={workflows} what="workflows" />
      <section aria-labelledby="templates-title" className="templates">
        <h2 id="templates-title">Start from a template</h2>
        <ul className="template-grid">
          {WORKFLOW_TEMPLATES.map((template) => (
            <li key={template.id} className="card template-card" data-testid={`template-${template.id}`}>
              <h3>{template.name}</h3>
              <p className="muted">{template.description}</p>
              <Button
                variant="secondary"
                isBusy={fromTemplate.isPending && fromTemplate.variables?.id === template.id}
                onClick={() => fromTemplate.mutate(template)}
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
