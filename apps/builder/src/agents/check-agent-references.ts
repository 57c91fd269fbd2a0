import { CommonErrors, type ErrorDetail } from "@app/http";
import type { Deps } from "../deps.ts";
import { findKnowledgeBase } from "../knowledge/find-knowledge-base.ts";
import { savedUrlRefusal } from "../outbound/check-saved-url.ts";
import type { EvaluationGate } from "../versions/evaluation-gate.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import type { AgentTool } from "./contract.ts";

/**
 * Refuses (422, naming each field) an agent save that points at another workspace's (or no)
 * knowledge base or workflow, or gives an HTTP tool a URL the SSRF policy would refuse when the
 * tool is called. Nothing would leak at run time either; this tells the author at once.
 *
 * @example await checkAgentReferences(deps, workspaceId, input);
 */
export async function checkAgentReferences(
  deps: Pick<Deps, "db" | "config" | "publishGate">,
  workspaceId: string,
  input: {
    tools?: AgentTool[] | undefined;
    knowledge_base_ids?: string[] | undefined;
    evaluation_gate?: EvaluationGate | null | undefined;
  },
): Promise<void> {
  const details: ErrorDetail[] = [];
  for (const [index, id] of (input.knowledge_base_ids ?? []).entries()) {
    if (!(await findKnowledgeBase(deps.db, workspaceId, id))) {
      details.push({
        path: `knowledge_base_ids[${index}]`,
        message: `no knowledge base ${id} in this workspace`,
      });
    }
  }
  const gate = input.evaluation_gate;
  if (gate && !(await deps.publishGate?.hasDataset(workspaceId, gate.dataset_id))) {
    details.push({
      path: "evaluation_gate.dataset_id",
      message: `no dataset ${gate.dataset_id} in this workspace`,
    });
  }
  for (const [index, tool] of (input.tools ?? []).entries()) {
    if (tool.type === "workflow" && !(await findWorkflow(deps.db, workspaceId, tool.workflow_id))) {
      details.push({
        path: `tools[${index}].workflow_id`,
        message: `no workflow ${tool.workflow_id} in this workspace`,
      });
    }
    if (tool.type === "http") {
      const refusal = await savedUrlRefusal(tool.url, { allowPrivate: deps.config.allowPrivateUrls });
      if (refusal) details.push({ path: `tools[${index}].url`, message: refusal });
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
