import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef } from "react";
import { api } from "../api/client.ts";
import { navigate } from "../router.ts";
import { Button, EmptyState, ErrorBox, Link, Loading, PageHeader, QueryError } from "../ui/ui.tsx";
import { useWorkflows, type Workflow } from "./queries.ts";

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
  const workflows = useWorkflows();
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
  const importFile = useMutation({
    mutationFn: async (file: File) =>
      api<Workflow>("/api/workflows/import", { json: JSON.parse(await file.text()) }),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: ["workflows"] });
      navigate(`/workflows/${created.id}`);
    },
  });
  return (
    <>
      <PageHeader
        title="Workflows"
        actions={
          <>
            <Button
              variant="secondary"
              onClick={() => fileInput.current?.click()}
              isBusy={importFile.isPending}
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
                if (file) importFile.mutate(file);
              }}
            />
            <Button onClick={() => create.mutate()} isBusy={create.isPending}>
              New workflow
            </Button>
          </>
        }
      />
      <QueryError query={workflows} />
      <ErrorBox error={create.error ?? importFile.error} />
      {workflows.isPending ? <Loading what="workflows" /> : null}
      {workflows.data?.data.length === 0 ? (
        <EmptyState title="No workflows yet">
          <p>
            Draw a flow of Start, LLM, Code, HTTP, Condition, Tool and End nodes, then run it or call it by
            URL.
          </p>
        </EmptyState>
      ) : null}
      <div className="list">
        {workflows.data?.data.map((workflow) => (
          <div className="card list-item" key={workflow.id}>
            <Link to={`/workflows/${workflow.id}`}>
              <strong>{workflow.name}</strong>
            </Link>
            <span className="badge">{workflow.graph.nodes.length} nodes</span>
          </div>
        ))}
      </div>
    </>
  );
}
