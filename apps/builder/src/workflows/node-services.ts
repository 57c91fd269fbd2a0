import { NodeExecutionError, type NodeExecutors } from "@app/workflow";
import { readCredentialSecret } from "../credentials/open-credential.ts";
import type { Deps } from "../deps.ts";
import { outboundFetch } from "../outbound/outbound-fetch.ts";
import { citationJson } from "../ports/tool-ports.ts";
import { generateForWorkspace } from "../providers/generate-for-workspace.ts";
import type { WorkflowCapabilities } from "./capabilities.ts";
import { codeNodeExecutor } from "./executors/code-node.ts";
import { httpNodeExecutor } from "./executors/http-node.ts";
import { llmNodeExecutor } from "./executors/llm-node.ts";
import { findWorkflow } from "./find-workflow.ts";
import { checkNestingDepth } from "./nesting.ts";
import type { NodeServices, WorkflowRunner } from "./runs/workflow-runner.ts";
import { currentTimeTool, httpRequestTool } from "./tools/builtin-tools.ts";
import { generateImageTool } from "./tools/generate-image-tool.ts";
import { mcpTool } from "./tools/mcp-tool.ts";
import { defineTool, ToolRegistry, z } from "./tools/registry.ts";
import { runAgentTool } from "./tools/run-agent-tool.ts";

/**
 * The executors and tools of workflow nodes, built from what the builder offers. `runner` is asked
 * lazily because the run_workflow tool needs the runner that these services are given to.
 */
export function createNodeServices(
  deps: Deps,
  capabilities: WorkflowCapabilities,
  runner: () => WorkflowRunner,
): NodeServices {
  const fetch = outboundFetch({ allowPrivate: deps.config.allowPrivateUrls });
  const secrets = (workspaceId: string) => (credentialId: string) =>
    readCredentialSecret(deps, workspaceId, credentialId);
  const tools = new ToolRegistry([
    currentTimeTool(deps.clock),
    httpRequestTool(fetch, secrets, deps.clock),
    generateImageTool(capabilities.generation),
    runAgentTool(deps),
    mcpTool(capabilities.mcp),
    defineTool({
      name: "run_code",
      description:
        "Runs Python, JavaScript, Go or Rust in the sandbox. Entry points: Python `def main(inputs)`, JavaScript `function main(inputs)`, Go `func Main(inputs map[string]any) (map[string]any, error)`, Rust `fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String>`; each returns an object.",
      outputs: ["result", "stdout"],
      args: z.object({
        language: z.enum(["python", "javascript", "go", "rust"]),
        code: z.string().min(1).max(100_000),
        inputs: z.record(z.string(), z.unknown()).default({}),
      }),
      run: async (args, { workspaceId, signal }) => {
        if (!capabilities.code)
          throw new NodeExecutionError("sandbox_unavailable", "The code sandbox is not available.");
        const result = await capabilities.code.run({
          workspaceId,
          language: args.language,
          code: args.code,
          input: args.inputs,
          signal,
        });
        return { result: result.output, stdout: result.stdout };
      },
    }),
    defineTool({
      name: "run_workflow",
      description: "Runs another workflow of the workspace with the given inputs and returns its outputs.",
      outputs: ["result", "run_id", "status"],
      args: z.object({
        workflow_id: z.string().max(64),
        inputs: z.record(z.string(), z.unknown()).default({}),
      }),
      run: async (args, { workspaceId, depth }) => {
        checkNestingDepth(depth);
        const workflow = await findWorkflow(deps.db, workspaceId, args.workflow_id);
        if (!workflow)
          throw new NodeExecutionError(
            "workflow_not_found",
            `No workflow ${args.workflow_id} in this workspace.`,
          );
        const result = await runner().run({
          workspaceId,
          workflow,
          inputs: args.inputs,
          trigger: "tool",
          depth: depth + 1,
        });
        if (result.status !== "succeeded") {
          throw new NodeExecutionError(
            "workflow_failed",
            `Workflow ${workflow.id} ${result.status}: ${result.error?.message ?? ""}`,
          );
        }
        return { result: result.outputs, run_id: result.run_id, status: result.status };
      },
    }),
    ...(capabilities.knowledge
      ? [
          defineTool({
            name: "knowledge_search",
            description:
              "Searches knowledge bases and returns the best matching chunks with their documents.",
            outputs: ["result", "text"],
            args: z.object({
              knowledge_base_ids: z.array(z.string().max(64)).min(1).max(32),
              query: z.string().min(1).max(10_000),
              top_k: z.number().int().min(1).max(50).default(5),
            }),
            run: async (args, { workspaceId }) => {
              const chunks =
                (await capabilities.knowledge?.search({
                  workspaceId,
                  knowledgeBaseIds: args.knowledge_base_ids,
                  query: args.query,
                  topK: args.top_k,
                })) ?? [];
              return {
                result: chunks.map(citationJson),
                text: chunks.map((chunk) => chunk.text).join("\n\n"),
              };
            },
          }),
        ]
      : []),
  ]);

  return {
    tools,
    executors: (workspaceId, depth) => {
      // One sandbox session per run: its Code nodes share the run's sandbox processes.
      const code = capabilities.code?.openRun?.(workspaceId);
      const executors: NodeExecutors = {
        http: httpNodeExecutor(fetch, secrets(workspaceId), deps.clock),
        code: codeNodeExecutor(code ?? capabilities.code, workspaceId),
        llm: llmNodeExecutor(
          (request) => generateForWorkspace(deps, { ...request, source: "workflow_llm" }),
          capabilities.knowledge,
          workspaceId,
        ),
        tool: tools.executor(workspaceId, depth),
      };
      return { executors, close: () => code?.close() };
    },
  };
}
