import { ApiError } from "@app/http";
import { type StartInputsJsonSchema, startInputsJsonSchema } from "@app/workflow";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { findTurnContext } from "../agents/find-turn-context.ts";
import { listExposedAgents } from "../agents/list-exposed-agents.ts";
import { prepareAgentTurn } from "../agents/prepare-agent-turn.ts";
import { runAgentTurn } from "../agents/run-agent-turn.ts";
import type { Deps } from "../deps.ts";
import { checkRunnable } from "../workflows/check-runnable.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import { listExposedWorkflows } from "../workflows/list-exposed-workflows.ts";
import type { WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import { workflowToRun } from "../workflows/workflow-versions.ts";

export interface ExposedTool {
  name: string;
  description: string;
  inputSchema: StartInputsJsonSchema;
  target: { kind: "agent" | "workflow"; id: string };
}

const MAX_NAME = 64;

/**
 * The workspace's exposed agents and workflows as MCP tools. Names come from their names
 * (`support_bot`), made unique in list order, which is creation order, so a name stays put while
 * others come and go after it. A workflow's arguments are its Start node's inputs.
 *
 * @example const tools = await listExposedTools(deps, "ws_1");
 */
export async function listExposedTools(deps: Pick<Deps, "db">, workspaceId: string): Promise<ExposedTool[]> {
  const [agents, workflows] = await Promise.all([
    listExposedAgents(deps.db, workspaceId),
    listExposedWorkflows(deps.db, workspaceId),
  ]);
  const taken = new Set<string>();
  const tools: ExposedTool[] = [];
  for (const agent of agents) {
    tools.push({
      name: uniqueName(taken, agent.name, "agent"),
      description:
        agent.description ||
        `Ask the agent "${agent.name}": send a message, get its answer. Pass conversation_id from an earlier answer to continue that conversation.`,
      inputSchema: {
        type: "object",
        properties: {
          message: {
            type: "string",
            description: "What to say to the agent",
            minLength: 1,
            maxLength: 32_000,
          },
          conversation_id: {
            type: "string",
            description: "Continue this conversation (from an earlier answer)",
          },
        },
        required: ["message"],
      },
      target: { kind: "agent", id: agent.id },
    });
  }
  for (const workflow of workflows) {
    tools.push({
      name: uniqueName(taken, workflow.name, "workflow"),
      description: workflow.description || `Run the workflow "${workflow.name}" and get its outputs.`,
      inputSchema: startInputsJsonSchema(workflow.graph),
      target: { kind: "workflow", id: workflow.id },
    });
  }
  return tools;
}

/**
 * Runs an exposed agent (one turn, stored as a conversation) or workflow (one run, trigger `mcp`)
 * and answers the MCP result. Failures the caller can act on (bad inputs, no credits, a provider
 * error, a failed run) are tool errors with the reason, as MCP asks, not protocol errors.
 *
 * @example const result = await callExposedTool(deps, runner, "ws_1", tool, { message: "Hi" }, { signal });
 */
export async function callExposedTool(
  deps: Deps,
  runner: WorkflowRunner,
  workspaceId: string,
  tool: ExposedTool,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; report?: ((message: string, total?: number) => void) | undefined },
): Promise<CallToolResult> {
  try {
    return tool.target.kind === "agent"
      ? await askAgent(deps, workspaceId, tool.target.id, args, options)
      : await runExposedWorkflow(deps, runner, workspaceId, tool.target.id, args, options);
  } catch (error) {
    if (error instanceof ApiError) return toolError(error.message);
    throw error;
  }
}

async function askAgent(
  deps: Deps,
  workspaceId: string,
  agentId: string,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; report?: ((message: string) => void) | undefined },
): Promise<CallToolResult> {
  const message = typeof args.message === "string" ? args.message.trim() : "";
  if (!message || message.length > 32_000)
    return toolError("message must be a non-empty string of at most 32000 characters.");
  const conversationId = typeof args.conversation_id === "string" ? args.conversation_id : undefined;
  // An outside caller: the newest published version, or the draft of an agent never published.
  const context = await findTurnContext(deps.db, workspaceId, {
    agentId,
    conversationId,
    version: "published",
  });
  if (!context || context === "version_not_found") return toolError("This agent no longer exists.");
  const turn = await prepareAgentTurn(
    deps,
    workspaceId,
    context,
    { message, conversation_id: conversationId },
    0,
    { source: "mcp" },
  );
  const events = runAgentTurn(deps, turn, options.signal);
  let next = await events.next();
  while (!next.done) {
    if (next.value.event === "tool_result") options.report?.(`tool ${next.value.data.name} finished`);
    next = await events.next();
  }
  const answer = next.value;
  return {
    content: [{ type: "text", text: answer.message.content }],
    structuredContent: { text: answer.message.content, conversation_id: answer.conversation_id },
  };
}

async function runExposedWorkflow(
  deps: Deps,
  runner: WorkflowRunner,
  workspaceId: string,
  workflowId: string,
  args: Record<string, unknown>,
  options: { report?: ((message: string, total?: number) => void) | undefined },
): Promise<CallToolResult> {
  const draft = await findWorkflow(deps.db, workspaceId, workflowId);
  if (!draft) return toolError("This workflow no longer exists.");
  // An outside caller: the newest published version, or the draft of a workflow never published.
  const chosen = await workflowToRun(deps.db, draft, "published");
  if (chosen === "version_not_found") return toolError("This workflow's published version is gone.");
  const { workflow, version } = chosen;
  checkRunnable(runner, workflow, args, version);
  const total = workflow.graph.nodes.length;
  const report = options.report;
  const result = await runner.run({
    workspaceId,
    workflow,
    inputs: args,
    trigger: "mcp",
    version,
    ...(report
      ? {
          onEvent: (event) => {
            if (event.event === "node_finished" || event.event === "node_skipped") {
              report(
                `${String(event.data.node_id)} ${event.event === "node_skipped" ? "skipped" : String(event.data.status)}`,
                total,
              );
            }
          },
        }
      : {}),
  });
  if (result.status !== "succeeded") {
    return toolError(
      `The run ${result.run_id} ${result.status}${result.error ? `: ${result.error.code}: ${result.error.message}` : "."}`,
    );
  }
  const outputs = result.outputs ?? {};
  return {
    content: [{ type: "text", text: JSON.stringify(outputs) }],
    structuredContent: { ...outputs },
  };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

function uniqueName(taken: Set<string>, name: string, fallback: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, MAX_NAME) || fallback;
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) {
    const suffix = `_${n}`;
    candidate = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  }
  taken.add(candidate);
  return candidate;
}
