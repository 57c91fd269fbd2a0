import { CommonErrors, type ErrorDetail } from "@app/http";
import type { WorkflowGraph } from "@app/workflow";
import { findAgent } from "../agents/find-agent.ts";
import type { Deps } from "../deps.ts";
import { findKnowledgeBase } from "../knowledge/find-knowledge-base.ts";
import { savedUrlRefusal } from "../outbound/check-saved-url.ts";
import { findWorkflow } from "./find-workflow.ts";

const isLiteralId = (value: unknown): value is string => typeof value === "string" && !value.includes("{{");

/**
 * Refuses (422, naming each node's field) a graph that points at another workspace's (or no)
 * knowledge base (an LLM node's or a knowledge_search tool's), workflow or agent, or gives an HTTP node a URL the SSRF policy would refuse when
 * the node runs. Templated ids and hosts are left to run time, where the same checks apply.
 *
 * @example await checkGraphReferences(deps, workspaceId, graph);
 */
export async function checkGraphReferences(
  deps: Pick<Deps, "db" | "config">,
  workspaceId: string,
  graph: WorkflowGraph,
): Promise<void> {
  const details: ErrorDetail[] = [];
  const urlRefusals = await refusalsByUrl(deps, graph);
  for (const [index, node] of graph.nodes.entries()) {
    const at = (field: string) => `graph.nodes[${index}].data.${field}`;
    /** `undefined` stands for an id left to run time (a template), keeping the others' indexes. */
    const checkKnowledgeBases = async (ids: readonly (string | undefined)[], field: string) => {
      for (const [i, id] of ids.entries()) {
        if (id !== undefined && !(await findKnowledgeBase(deps.db, workspaceId, id))) {
          details.push({
            path: at(`${field}[${i}]`),
            message: `no knowledge base ${id} in this workspace`,
            node_id: node.id,
          });
        }
      }
    };
    if (node.type === "llm") {
      await checkKnowledgeBases(node.data.knowledge_base_ids ?? [], "knowledge_base_ids");
    } else if (node.type === "http") {
      const refusal = urlRefusals.get(node.data.url);
      if (refusal) details.push({ path: at("url"), message: refusal, node_id: node.id });
    } else if (node.type === "tool") {
      const { workflow_id: workflowId, agent_id: agentId, knowledge_base_ids: baseIds } = node.data.args;
      if (node.data.tool === "knowledge_search" && Array.isArray(baseIds)) {
        const literalIds = baseIds.map((id: unknown) => (isLiteralId(id) ? id : undefined));
        await checkKnowledgeBases(literalIds, "args.knowledge_base_ids");
      }
      if (node.data.tool === "run_workflow" && isLiteralId(workflowId)) {
        if (!(await findWorkflow(deps.db, workspaceId, workflowId))) {
          details.push({
            path: at("args.workflow_id"),
            message: `no workflow ${workflowId} in this workspace`,
            node_id: node.id,
          });
        }
      }
      if (node.data.tool === "run_agent" && isLiteralId(agentId)) {
        if (!(await findAgent(deps.db, workspaceId, agentId))) {
          details.push({
            path: at("args.agent_id"),
            message: `no agent ${agentId} in this workspace`,
            node_id: node.id,
          });
        }
      }
    }
  }
  const first = details[0];
  if (first) {
    throw CommonErrors.VALIDATION_FAILED({
      message: `Invalid body. ${first.path}: ${first.message}`,
      param: first.path,
      details,
    });
  }
}

/**
 * Each distinct HTTP node URL checked once, all at the same time: a check resolves the host, and
 * checked one after another a 200-node chain waited for 200 lookups in a row on every save.
 */
async function refusalsByUrl(
  deps: Pick<Deps, "config">,
  graph: WorkflowGraph,
): Promise<Map<string, string | undefined>> {
  const urls = new Set<string>();
  for (const node of graph.nodes) if (node.type === "http") urls.add(node.data.url);
  const options = { allowPrivate: deps.config.allowPrivateUrls };
  const checked = await Promise.all(
    [...urls].map(async (url) => [url, await savedUrlRefusal(url, options)] as const),
  );
  return new Map(checked);
}
