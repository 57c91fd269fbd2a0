import { useState } from "react";
import { useAgents } from "../agents/queries.ts";
import { ApiError } from "../api/client.ts";
import type { ImportReport, UnresolvedReference } from "../api/schema.gen.ts";
import { useKnowledgeBases } from "../knowledge/queries.ts";
import { useMcpServers } from "../mcp/queries.ts";
import { useCredentials } from "../settings/credential-queries.ts";
import { Dialog } from "../ui/Dialog.tsx";
import { Button, ErrorBox, Field, Loading } from "../ui/ui.tsx";
import { useWorkflows } from "../workflows/queries.ts";
import { type ImportFile, type ImportKind, useImport, useImportPreview } from "./queries.ts";

const KIND_NAMES: Record<UnresolvedReference["kind"], string> = {
  knowledge_base: "Knowledge base",
  credential: "Credential",
  workflow: "Workflow",
  agent: "Agent",
  mcp_server: "MCP server",
};

const ACTIONS: Record<UnresolvedReference["action"], string> = {
  removed: "left out where it was used",
  cleared: "its field is left empty (the node fails until you set it)",
  kept: "the node fails with credential_unavailable until you choose one",
};

/** This workspace's things of each kind, to point an unresolved reference at. */
function useChoices() {
  const bases = useKnowledgeBases();
  const credentials = useCredentials();
  const workflows = useWorkflows();
  const agents = useAgents();
  const servers = useMcpServers();
  return (kind: UnresolvedReference["kind"]): { id: string; label: string }[] => {
    switch (kind) {
      case "knowledge_base":
        return (bases.data?.data ?? []).map((item) => ({ id: item.id, label: item.name }));
      case "credential":
        return (credentials.data?.data ?? []).map((item) => ({
          id: item.id,
          label: `${item.name} (${item.provider})`,
        }));
      case "workflow":
        return (workflows.data?.data ?? []).map((item) => ({ id: item.id, label: item.name }));
      case "agent":
        return (agents.data?.data ?? []).map((item) => ({ id: item.id, label: item.name }));
      case "mcp_server":
        return (servers.data?.data ?? []).map((item) => ({ id: item.id, label: item.name }));
    }
  };
}

/**
 * Importing a file: what the import would do (the references it found here and those it did not,
 * the fields left out as secrets, what became of each n8n node), a choice for each unresolved
 * reference, then the import itself.
 *
 * @example <ImportDialog kind="workflow" file={file} onClose={…} onImported={(id) => navigate(`/workflows/${id}`)} />
 */
export function ImportDialog({
  kind,
  file,
  onClose,
  onImported,
}: {
  kind: ImportKind;
  file: ImportFile | null;
  onClose: () => void;
  onImported: (id: string) => void;
}) {
  return (
    <Dialog
      title={`Import ${file?.name ?? ""}`}
      isOpen={file !== null}
      onClose={onClose}
      testId="import-dialog"
    >
      {file ? (
        <ImportSteps key={file.name} kind={kind} file={file} onImported={onImported} onClose={onClose} />
      ) : null}
    </Dialog>
  );
}

function ImportSteps({
  kind,
  file,
  onImported,
  onClose,
}: {
  kind: ImportKind;
  file: ImportFile;
  onImported: (id: string) => void;
  onClose: () => void;
}) {
  const [isPartial, setPartial] = useState(false);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [name, setName] = useState<string | null>(null);
  const preview = useImportPreview(kind, file, isPartial);
  const importFile = useImport(kind);
  const choices = useChoices();
  const refused =
    preview.error instanceof ApiError && preview.error.code === "n8n_unsupported_nodes"
      ? preview.error
      : null;

  if (preview.isPending) return <Loading what="what the import would do" />;
  if (refused) {
    return (
      <div>
        <p>{refused.message}</p>
        <ul className="import-list" aria-label="Nodes with no counterpart">
          {refused.details.map((detail) => (
            <li key={detail.path}>{detail.message}</li>
          ))}
        </ul>
        <div className="actions">
          <Button onClick={() => setPartial(true)}>Import the rest, with placeholders</Button>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
        </div>
      </div>
    );
  }
  if (preview.error) return <ErrorBox error={preview.error} onRetry={() => preview.refetch()} />;
  const report: ImportReport = preview.data.import_report;
  const unresolved = report.references.unresolved;
  return (
    <form
      aria-label="Import"
      onSubmit={(event) => {
        event.preventDefault();
        importFile.mutate(
          { file, references: mapping, name: name ?? undefined, partial: isPartial },
          { onSuccess: (created) => onImported(created.id) },
        );
      }}
    >
      <p className="muted">
        {report.source.format === "n8n"
          ? "An n8n workflow: each node that has a counterpart here becomes one."
          : `A ${report.source.format} document (version ${report.source.version}).`}
      </p>
      <Field label="Name">
        <input
          name="import-name"
          value={name ?? preview.data.name}
          onChange={(e) => setName(e.target.value)}
          required
        />
      </Field>
      {report.references.resolved.length > 0 ? (
        <section>
          <h3>Found here</h3>
          <ul className="import-list" aria-label="References found">
            {report.references.resolved.map((reference) => (
              <li key={`${reference.kind}:${reference.id}`}>
                {KIND_NAMES[reference.kind]} <strong>{reference.name ?? reference.id}</strong>:{" "}
                {reference.resolved_by === "id" ? "the same one" : `found by ${reference.resolved_by}`}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {unresolved.length > 0 ? (
        <section>
          <h3>Choose what to use here</h3>
          <p className="muted">
            These are not in this workspace under the same name. Choose one for each, or leave it: the import
            still works and says where it is missing.
          </p>
          {unresolved.map((reference) => (
            <Field
              key={`${reference.kind}:${reference.id}`}
              label={`${KIND_NAMES[reference.kind]}: ${reference.name ?? reference.id}`}
              hint={`${reference.reason}. If left: ${ACTIONS[reference.action]}.`}
            >
              <select
                value={mapping[reference.id] ?? ""}
                onChange={(e) => {
                  const { [reference.id]: _, ...rest } = mapping;
                  setMapping(e.target.value ? { ...rest, [reference.id]: e.target.value } : rest);
                }}
              >
                <option value="">Leave unresolved</option>
                {choices(reference.kind).map((choice) => (
                  <option key={choice.id} value={choice.id}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </Field>
          ))}
        </section>
      ) : null}
      {report.redacted.length > 0 ? (
        <section>
          <h3>Left out as secrets</h3>
          <ul className="import-list">
            {report.redacted.map((field) => (
              <li key={field.path}>
                <code>{field.path}</code>: {field.reason}; fill it in after importing.
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {report.n8n ? (
        <section>
          <h3>n8n nodes</h3>
          <ul className="import-list" aria-label="n8n nodes">
            {report.n8n.nodes.map((node) => (
              <li key={node.name} className={`import-${node.outcome}`}>
                <strong>{node.name}</strong> <span className="muted">({node.type})</span>:{" "}
                {node.outcome === "mapped"
                  ? `becomes ${node.node_type ?? "a node"} ${node.node_id ?? ""}`
                  : node.outcome === "placeholder"
                    ? `a placeholder to replace (${node.reason ?? "no counterpart"})`
                    : `${node.outcome}${node.reason ? `: ${node.reason}` : ""}`}
                {node.warnings?.length ? (
                  <ul>
                    {node.warnings.map((warning) => (
                      <li key={warning} className="muted">
                        {warning}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {report.warnings.length > 0 ? (
        <ul className="import-list" aria-label="Warnings">
          {report.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
      <ErrorBox error={importFile.error} />
      <div className="actions">
        <Button type="submit" isBusy={importFile.isPending}>
          Import {kind}
        </Button>
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
