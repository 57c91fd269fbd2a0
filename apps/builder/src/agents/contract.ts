import { patchBody } from "@app/http";
import { CODE_ENTRY_POINTS } from "@app/workflow";
import { z } from "@hono/zod-openapi";
import { embeddingSetting } from "../knowledge/contract.ts";
import { DEFAULT_EMBEDDING } from "../knowledge/embedders.ts";
import { PROVIDER_IDS } from "../providers/catalogue.ts";
import { publishingFields, versionFields } from "../versions/contract.ts";
import { evaluationGateSchema, gateResultSchema } from "../versions/evaluation-gate.ts";

const toolName = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, "must start with a letter and use letters, digits, _ or -");

/** A JSON Schema object describing a tool's parameters (kept as given; checked when the tool runs). */
const parametersSchema = z.record(z.string(), z.unknown()).default({ type: "object", properties: {} });

export const agentToolSchema = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("knowledge_search"),
      top_k: z.number().int().min(1).max(50).optional(),
    }),
    z.strictObject({
      type: z.literal("code"),
      name: toolName,
      description: z.string().max(1000).default(""),
      language: z.enum(["python", "javascript", "go", "rust"]),
      code: z.string().min(1).max(100_000).openapi({ description: CODE_ENTRY_POINTS }),
      parameters: parametersSchema,
    }),
    z.strictObject({
      type: z.literal("http"),
      name: toolName,
      description: z.string().max(1000).default(""),
      method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
      url: z.string().url().max(2048),
      headers: z.record(z.string(), z.string()).optional(),
      parameters: parametersSchema,
    }),
    z.strictObject({
      type: z.literal("workflow"),
      name: toolName,
      description: z.string().max(1000).default(""),
      workflow_id: z.string().max(64),
    }),
    z.strictObject({
      type: z.literal("mcp"),
      server_id: z
        .string()
        .max(64)
        .openapi({ description: "An MCP server of the workspace (/api/mcp-servers)" }),
      prefix: z
        .string()
        .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,31}$/, "must start with a letter and use letters, digits, _ or -")
        .optional()
        .openapi({ description: "Put before each tool's name, so two servers' tools cannot clash" }),
      tools: z
        .array(
          z.strictObject({
            name: z.string().min(1).max(128).openapi({ description: "The tool's name on the server" }),
            description: z
              .string()
              .max(1000)
              .optional()
              .openapi({ description: "What the model reads instead of the server's description" }),
            fixed_arguments: z.record(z.string().max(128), z.unknown()).optional().openapi({
              description:
                "Parameters fixed to a value: hidden from the model and always sent as given; the others are left to the model",
            }),
          }),
        )
        .max(100)
        .optional()
        .openapi({ description: "The tools offered to the model; absent, all the server lists" }),
    }),
  ])
  .openapi("AgentTool");

/** Tools are offered to the model by name, so two tools with one name would shadow each other. */
const toolList = z
  .array(agentToolSchema)
  .max(64)
  .superRefine((tools, ctx) => {
    const seen = new Set<string>();
    tools.forEach((tool, index) => {
      // An MCP server's tool names are known only when the turn lists them (clashes are renamed then).
      if (tool.type === "mcp") return;
      const name = tool.type === "knowledge_search" ? "knowledge_search" : tool.name;
      if (seen.has(name))
        ctx.addIssue({ code: "custom", path: [index, "name"], message: `duplicate tool name ${name}` });
      seen.add(name);
    });
  });

const provider = z
  .string()
  .refine((value) => PROVIDER_IDS.includes(value), {
    message: `must be one of the providers listed at GET /api/providers (${PROVIDER_IDS.join(", ")})`,
  })
  .openapi({ example: "openai", enum: PROVIDER_IDS });

/** Annotation replies (docs/logs-and-evaluations.md): off until an agent turns them on. */
export const annotationReplySchema = z
  .object({
    enabled: z.boolean(),
    threshold: z.number().min(0).max(1).default(0.9).openapi({
      description:
        "The lowest cosine similarity (0–1) between a question and an annotated one that is answered with the annotation",
    }),
    embedding: embeddingSetting.default({ ...DEFAULT_EMBEDDING }).openapi({
      description: "The model questions are embedded with; the offline `local` embedder by default",
    }),
  })
  .strict()
  .openapi("AnnotationReply", {
    description:
      "Answer a question similar enough to an annotated one with the annotation, without calling the model; not part of a version (it applies at once)",
  });

export const createAgentBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(2000).default(""),
    provider: provider.optional().openapi({
      description:
        "Absent: the provider of the workspace's newest stored key, else one the server has a key for, else openai",
    }),
    model: z.string().trim().min(1).max(200).optional().openapi({
      example: "gpt-4o-mini",
      description:
        "Absent: the provider's first chat model in GET /api/providers (422 for a provider with none listed)",
    }),
    instructions: z.string().max(100_000).default(""),
    temperature: z.number().min(0).max(2).nullable().default(null),
    tools: toolList.default([]),
    knowledge_base_ids: z.array(z.string().max(64)).max(32).default([]),
    memory_turns: z.number().int().min(0).max(100).default(10),
    mcp_exposed: z.boolean().default(false).openapi({
      description: "Served as a tool of the workspace's MCP endpoint, /api/mcp (see docs/mcp.md)",
    }),
    evaluation_gate: evaluationGateSchema.nullable().default(null),
    annotation_reply: annotationReplySchema.nullable().default(null),
  })
  .strict()
  .openapi("CreateAgentRequest");

export const updateAgentBody = patchBody(
  z
    .object({
      name: z.string().trim().min(1).max(100),
      description: z.string().max(2000),
      provider,
      model: z.string().trim().min(1).max(200),
      instructions: z.string().max(100_000),
      temperature: z.number().min(0).max(2).nullable(),
      tools: toolList,
      knowledge_base_ids: z.array(z.string().max(64)).max(32),
      memory_turns: z.number().int().min(0).max(100),
      mcp_exposed: z.boolean(),
      evaluation_gate: evaluationGateSchema.nullable(),
      annotation_reply: annotationReplySchema.nullable(),
    })
    .partial(),
).openapi("UpdateAgentRequest");

export const agentSchema = z
  .object({
    id: z.string().openapi({ example: "agt_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    name: z.string(),
    description: z.string(),
    provider: z.string(),
    model: z.string(),
    instructions: z.string(),
    temperature: z.number().nullable(),
    tools: z.array(agentToolSchema),
    knowledge_base_ids: z.array(z.string()),
    memory_turns: z.number().int(),
    mcp_exposed: z.boolean(),
    evaluation_gate: evaluationGateSchema.nullable(),
    annotation_reply: z
      .object({
        enabled: z.boolean(),
        threshold: z.number(),
        embedding: z.object({ provider: z.string(), model: z.string() }),
      })
      .nullable()
      .openapi({ description: "Annotation replies; null while never set (off)" }),
    ...publishingFields,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Agent");

export const agentVersionSchema = z
  .object({
    agent_id: z.string(),
    ...versionFields,
    name: z.string(),
    description: z.string(),
    provider: z.string(),
    model: z.string(),
    instructions: z.string(),
    temperature: z.number().nullable(),
    tools: z.array(agentToolSchema),
    knowledge_base_ids: z.array(z.string()),
    memory_turns: z.number().int(),
    evaluation_gate: gateResultSchema.nullable().openapi({
      description: "The gate's evaluation when this version was published, or that force skipped it",
    }),
  })
  .openapi("AgentVersion", { description: "An immutable published version of an agent" });

export type CreateAgentInput = z.infer<typeof createAgentBody>;
export type UpdateAgentInput = z.infer<typeof updateAgentBody>;
export type AgentTool = z.infer<typeof agentToolSchema>;
