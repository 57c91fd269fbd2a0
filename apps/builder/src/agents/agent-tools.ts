import { jsonSchema, type ToolSet, tool } from "ai";
import { z } from "zod";
import type { FetchFunction } from "../outbound/outbound-fetch.ts";
import { type AgentToolPorts, citationJson } from "../ports/tool-ports.ts";
import type { AgentTool } from "./contract.ts";
import { callHttpTool } from "./http-tool.ts";
import { addMcpTools, type OpenedMcpServer, openMcpServer } from "./mcp-agent-tools.ts";

const CODE_TOOL_TIMEOUT_MS = 10_000;
const DEFAULT_TOP_K = 5;

export interface ToolContext {
  ports: AgentToolPorts;
  workspaceId: string;
  knowledgeBaseIds: string[];
  allowPrivateUrls: boolean;
  outboundFetch: FetchFunction;
  signal: AbortSignal;
  /** 0 for a chat turn; more when a workflow's run_agent tool started this turn. */
  depth: number;
}

type ToolOutput = Record<string, unknown>;

/**
 * The AI SDK tools of an agent. A tool that fails answers `{ error }` to the model rather than
 * failing the turn: the model can say so or try something else, as a person would.
 *
 * MCP servers are listed before the turn (from this process's recent listing when there is one).
 *
 * @example const tools = await buildAgentTools(agent.tools, context);
 */
export async function buildAgentTools(
  definitions: readonly AgentTool[],
  context: ToolContext,
): Promise<ToolSet> {
  const tools: ToolSet = {};
  const servers = new Map(
    definitions.flatMap((definition) =>
      definition.type === "mcp"
        ? [[definition, openMcpServer(definition, { ...context, source: context.ports.mcp })] as const]
        : [],
    ),
  );
  // A workflow's arguments are its Start inputs, read when the turn starts (the workflow may have
  // changed since the agent was saved); one deleted since is offered open and fails when called.
  const workflowSchemas = new Map(
    definitions.flatMap((definition) =>
      definition.type === "workflow" && context.ports.workflows
        ? [
            [
              definition,
              context.ports.workflows.inputSchema({
                workspaceId: context.workspaceId,
                workflowId: definition.workflow_id,
              }),
            ] as const,
          ]
        : [],
    ),
  );
  for (const definition of definitions) {
    switch (definition.type) {
      case "knowledge_search":
        tools.knowledge_search = tool({
          description: "Search the agent's knowledge bases for passages relevant to a query.",
          inputSchema: z.object({ query: z.string().min(1).describe("What to look for") }),
          execute: ({ query }) =>
            guarded(async () => {
              const search = context.ports.knowledge;
              if (!search) return unavailable("Knowledge search is");
              if (context.knowledgeBaseIds.length === 0)
                return { results: [], note: "This agent has no knowledge bases." };
              const chunks = await search.search({
                workspaceId: context.workspaceId,
                knowledgeBaseIds: context.knowledgeBaseIds,
                query,
                topK: definition.top_k ?? DEFAULT_TOP_K,
              });
              return { results: chunks.map(citationJson) };
            }),
        });
        break;
      case "code":
        tools[definition.name] = tool({
          description: definition.description || `Runs ${definition.language} code.`,
          inputSchema: validatedSchema(definition.parameters),
          execute: (input) =>
            guarded(async () => {
              const runner = context.ports.code;
              if (!runner) return unavailable("Code tools are");
              const result = await runner.runCode({
                workspaceId: context.workspaceId,
                language: definition.language,
                code: definition.code,
                input,
                timeoutMs: CODE_TOOL_TIMEOUT_MS,
              });
              if (result.error) return { error: result.error, stderr: result.stderr.slice(-2000) };
              return { output: result.output };
            }),
        });
        break;
      case "http":
        tools[definition.name] = tool({
          description: definition.description || `Calls ${definition.method} ${definition.url}.`,
          inputSchema: validatedSchema(definition.parameters),
          execute: (input) =>
            guarded(() =>
              callHttpTool(definition, input, {
                fetch: context.outboundFetch,
                allowPrivate: context.allowPrivateUrls,
                signal: context.signal,
              }),
            ),
        });
        break;
      case "workflow": {
        const schema = await workflowSchemas.get(definition);
        tools[definition.name] = tool({
          description:
            definition.description || "Runs a workflow with the given inputs and returns its outputs.",
          inputSchema: schema
            ? validatedSchema(schema)
            : jsonSchema<Record<string, unknown>>({ type: "object", additionalProperties: true }),
          execute: (inputs) =>
            guarded(async () => {
              const workflows = context.ports.workflows;
              if (!workflows) return unavailable("Workflow tools are");
              const outputs = await workflows.runWorkflow({
                workspaceId: context.workspaceId,
                workflowId: definition.workflow_id,
                inputs,
                depth: context.depth + 1,
              });
              return { outputs };
            }),
        });
        break;
      }
      case "mcp":
        addMcpTools(
          tools,
          definition,
          await (servers.get(definition) as Promise<OpenedMcpServer>),
          validatedSchema,
        );
        break;
    }
  }
  return tools;
}

function unavailable(what: string): ToolOutput {
  return { error: `${what} not available on this server.` };
}

async function guarded(run: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : "unknown error";
    return { error: `The tool failed: ${message}` };
  }
}

/**
 * A tool's JSON Schema as the model sees it, plus validation of the model's arguments so a
 * malformed call goes back to the model as an error instead of reaching user code.
 */
function validatedSchema(parameters: Record<string, unknown>) {
  const schema = { type: "object", properties: {}, ...parameters };
  let validator: z.ZodType | undefined;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    validator = undefined; // schemas zod cannot read are sent as they are, unvalidated
  }
  return jsonSchema<Record<string, unknown>>(schema as Parameters<typeof jsonSchema>[0], {
    validate: (value) => {
      if (!validator) return { success: true, value: value as Record<string, unknown> };
      const result = validator.safeParse(value);
      return result.success
        ? { success: true, value: result.data as Record<string, unknown> }
        : { success: false, error: result.error };
    },
  });
}
