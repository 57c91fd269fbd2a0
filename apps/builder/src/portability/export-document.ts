import type { WorkflowGraph } from "@app/workflow";
import type { AgentTool } from "../agents/contract.ts";
import type { AgentSnapshot } from "../agents/schema.ts";
import type { BuilderDb } from "../db/index.ts";
import {
  AGENT_FORMAT,
  AGENT_FORMAT_VERSION,
  type AgentDocument,
  WORKFLOW_FORMAT,
  WORKFLOW_FORMAT_VERSION,
  type WorkflowDocument,
} from "./contract.ts";
import { EXPORT_SCHEMA_PATH } from "./json-schema.ts";
import { agentReferenceSites, describeReferences, graphReferenceSites } from "./references.ts";
import { stripAgentSecrets, stripGraphSecrets } from "./secrets.ts";

/**
 * The portable document of a workflow's content (the draft or a version): the definition without
 * secrets, and every knowledge base, credential, workflow, agent and MCP server it uses by kind and
 * name.
 *
 * @example const document = await workflowDocument(db, workspaceId, workflow, config.publicUrl);
 */
export async function workflowDocument(
  db: BuilderDb,
  workspaceId: string,
  content: { name: string; description: string; graph: WorkflowGraph },
  publicUrl: string,
): Promise<WorkflowDocument> {
  const graph = structuredClone(content.graph);
  const secrets = stripGraphSecrets(graph);
  const placeholders = new Set(secrets.references.map((reference) => reference.id));
  const sites = graphReferenceSites(structuredClone(graph)).filter(
    (site) => !(site.kind === "credential" && placeholders.has(site.id)),
  );
  const references = [...(await describeReferences(db, workspaceId, sites)), ...secrets.references];
  return {
    $schema: `${publicUrl}${EXPORT_SCHEMA_PATH}`,
    format: WORKFLOW_FORMAT,
    version: WORKFLOW_FORMAT_VERSION,
    name: content.name,
    description: content.description,
    graph,
    references,
    redacted: secrets.redacted,
  };
}

/**
 * The portable document of an agent's content (the draft or a version), as `workflowDocument` does
 * for workflows. MCP exposure is not part of it: an imported agent starts unexposed.
 *
 * @example const document = await agentDocument(db, workspaceId, agentSnapshot(row), config.publicUrl);
 */
export async function agentDocument(
  db: BuilderDb,
  workspaceId: string,
  snapshot: AgentSnapshot,
  publicUrl: string,
): Promise<AgentDocument> {
  const tools = structuredClone(snapshot.tools);
  const redacted = stripAgentSecrets(tools);
  const sites = agentReferenceSites({
    tools: structuredClone(tools),
    knowledge_base_ids: [...snapshot.knowledgeBaseIds],
  });
  return {
    $schema: `${publicUrl}${EXPORT_SCHEMA_PATH}`,
    format: AGENT_FORMAT,
    version: AGENT_FORMAT_VERSION,
    name: snapshot.name,
    description: snapshot.description,
    provider: snapshot.provider,
    model: snapshot.model,
    instructions: snapshot.instructions,
    temperature: snapshot.temperature,
    tools: tools as AgentTool[],
    knowledge_base_ids: [...snapshot.knowledgeBaseIds],
    memory_turns: snapshot.memoryTurns,
    references: await describeReferences(db, workspaceId, sites),
    redacted,
  };
}
