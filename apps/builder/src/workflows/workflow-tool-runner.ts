import { startInputsJsonSchema } from "@app/workflow";
import type { Deps } from "../deps.ts";
import type { WorkflowRunner as WorkflowToolPort } from "../ports/tool-ports.ts";
import { findWorkflow } from "./find-workflow.ts";
import { checkNestingDepth } from "./nesting.ts";
import type { WorkflowRunner } from "./runs/workflow-runner.ts";

/**
 * Workflows as agent tools: runs the workspace's workflow to the end and answers its outputs; a
 * workflow that does not exist or does not succeed is an error the tool reports to the model. The
 * model is told the workflow's Start inputs as the tool's arguments.
 *
 * @example agentTools: { workflows: workflowToolRunner(deps, () => runner) }
 */
export function workflowToolRunner(deps: Pick<Deps, "db">, runner: () => WorkflowRunner): WorkflowToolPort {
  return {
    async runWorkflow({ workspaceId, workflowId, inputs, depth }) {
      checkNestingDepth(depth);
      const workflow = await findWorkflow(deps.db, workspaceId, workflowId);
      if (!workflow) throw new Error(`There is no workflow ${workflowId} in this workspace.`);
      const result = await runner().run({ workspaceId, workflow, inputs, trigger: "tool", depth });
      if (result.status !== "succeeded") {
        throw new Error(
          `Workflow ${workflowId} ${result.status}: ${result.error?.message ?? "no reason given"}`,
        );
      }
      return result.outputs ?? {};
    },
    async inputSchema({ workspaceId, workflowId }) {
      const workflow = await findWorkflow(deps.db, workspaceId, workflowId);
      return workflow ? { ...startInputsJsonSchema(workflow.graph) } : undefined;
    },
  };
}
