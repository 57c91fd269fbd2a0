import type { WorkflowGraph } from "@app/workflow";
import type { CreateAgentInput } from "../agents/contract.ts";
import type { BuilderDb } from "../db/index.ts";
import { graphSchema } from "../workflows/contract.ts";
import { type ExportedReference, type ImportReport, WORKFLOW_FORMAT } from "./contract.ts";
import { ImportErrors } from "./errors.ts";
import { convertN8n } from "./n8n/convert.ts";
import type { AgentImport, WorkflowImport } from "./read-document.ts";
import {
  agentReferenceSites,
  compactGraph,
  dropRemoved,
  graphReferenceSites,
  MappingError,
  type ReferenceSite,
  resolveReferences,
} from "./references.ts";

/** A workflow an import would create, and what the import did to get it. */
export interface PreparedWorkflow {
  name: string;
  description: string;
  graph: WorkflowGraph;
  report: ImportReport;
}

/**
 * The workflow a document imports as in this workspace, references resolved (not yet validated as a
 * graph, nor stored). An n8n document is converted first; `partial` lets it leave out what has no
 * counterpart.
 *
 * @example const prepared = await prepareWorkflowImport(db, workspaceId, readWorkflowImport(body), { partial: false });
 */
export async function prepareWorkflowImport(
  db: BuilderDb,
  workspaceId: string,
  input: WorkflowImport,
  options: { partial: boolean },
): Promise<PreparedWorkflow> {
  if (input.kind === "n8n") {
    const converted = convertN8n(input.document, options);
    const parsed = graphSchema.safeParse(converted.graph);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw ImportErrors.N8N_IMPORT_FAILED({
        message:
          `The converted workflow is not valid: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim(),
        param: "nodes",
      });
    }
    const graph = parsed.data;
    const references = await resolve(
      db,
      workspaceId,
      graphReferenceSites(graph),
      converted.references,
      input.mapping,
    );
    compactGraph(graph);
    return {
      name: input.name ?? converted.name,
      description: "Imported from n8n.",
      graph,
      report: {
        source: { format: "n8n", version: null },
        references,
        redacted: [],
        n8n: { nodes: converted.nodes },
        warnings: converted.warnings,
      },
    };
  }
  const document = input.document;
  const graph = structuredClone(document.graph);
  const declared = document.version === 1 ? [] : document.references;
  const references = await resolve(db, workspaceId, graphReferenceSites(graph), declared, input.mapping);
  compactGraph(graph);
  return {
    name: input.name ?? document.name,
    description: document.description,
    graph,
    report: {
      source: { format: WORKFLOW_FORMAT, version: document.version },
      references,
      redacted: document.version === 1 ? [] : document.redacted,
      warnings: unusedMappings(input.mapping, graphReferenceSites(structuredClone(document.graph))),
    },
  };
}

/** An agent an import would create (as `POST /api/agents` takes it), and what the import did. */
export interface PreparedAgent {
  input: CreateAgentInput;
  report: ImportReport;
}

/**
 * The agent a document imports as in this workspace, references resolved (not yet stored).
 *
 * @example const prepared = await prepareAgentImport(db, workspaceId, readAgentImport(body));
 */
export async function prepareAgentImport(
  db: BuilderDb,
  workspaceId: string,
  input: AgentImport,
): Promise<PreparedAgent> {
  const document = input.document;
  const holder = {
    tools: structuredClone(document.tools) as unknown[],
    knowledge_base_ids: [...document.knowledge_base_ids] as unknown[],
  };
  const sites = agentReferenceSites(holder);
  const references = await resolve(db, workspaceId, sites, document.references, input.mapping);
  dropRemoved(holder.tools);
  dropRemoved(holder.knowledge_base_ids);
  return {
    input: {
      name: input.name ?? document.name,
      description: document.description,
      provider: document.provider,
      model: document.model,
      instructions: document.instructions,
      temperature: document.temperature,
      tools: holder.tools as CreateAgentInput["tools"],
      knowledge_base_ids: holder.knowledge_base_ids as string[],
      memory_turns: document.memory_turns,
      mcp_exposed: false,
      // Both name things of the exporting workspace (a dataset, its annotations): set again here.
      evaluation_gate: null,
      annotation_reply: null,
    },
    report: {
      source: { format: document.format, version: document.version },
      references,
      redacted: document.redacted,
      warnings: unusedMappings(
        input.mapping,
        agentReferenceSites({
          tools: structuredClone(document.tools),
          knowledge_base_ids: [...document.knowledge_base_ids],
        }),
      ),
    },
  };
}

async function resolve(
  db: BuilderDb,
  workspaceId: string,
  sites: readonly ReferenceSite[],
  declared: readonly ExportedReference[],
  mapping: Readonly<Record<string, string | null>>,
) {
  try {
    return await resolveReferences(db, workspaceId, sites, declared, mapping);
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    throw ImportErrors.REFERENCE_NOT_FOUND({
      message: `references.${error.id}: ${error.message}.`,
      param: `references.${error.id}`,
      details: [{ path: `references.${error.id}`, message: error.message }],
    });
  }
}

/** A mapping for an id the document never uses is most likely a typo: said, not refused. */
function unusedMappings(
  mapping: Readonly<Record<string, string | null>>,
  sites: readonly ReferenceSite[],
): string[] {
  const used = new Set(sites.map((site) => site.id));
  return Object.keys(mapping)
    .filter((id) => !used.has(id))
    .map((id) => `references.${id}: the document uses no reference with this id`);
}
