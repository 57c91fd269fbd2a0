import { z } from "@hono/zod-openapi";
import { versionSelector } from "../versions/contract.ts";

export const CONVERSATION_SOURCES = ["studio", "api", "app", "mcp", "workflow"] as const;

export const chatBody = z
  .object({
    message: z.string().trim().min(1).max(32_000).openapi({ example: "What is our refund policy?" }),
    conversation_id: z
      .string()
      .max(64)
      .optional()
      .openapi({ description: "Continue this conversation (its last `memory_turns` turns are sent along)" }),
    version: versionSelector,
  })
  .strict()
  .openapi("ChatRequest");

const usageSchema = z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() });

export const toolCallSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    output: z.unknown(),
    is_error: z.boolean(),
    duration_ms: z
      .number()
      .int()
      .nullable()
      .optional()
      .openapi({ description: "From the model's call to the tool's result" }),
  })
  .openapi("ToolCall");

export const citationSchema = z
  .object({
    knowledge_base_id: z.string(),
    document_id: z.string(),
    document_name: z.string(),
    chunk_id: z.string(),
    position: z.number().int().openapi({ description: "0-based order of the chunk in its document" }),
    text: z.string().openapi({ description: "The passage as the model read it" }),
  })
  .openapi("Citation", {
    description:
      "A passage the knowledge_search tool gave the model in this turn; open it at GET /api/rag/documents/{document_id}/chunks",
  });

export const messageSchema = z
  .object({
    id: z.string().openapi({ example: "msg_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    conversation_id: z.string(),
    role: z.enum(["user", "assistant"]),
    content: z.string(),
    tool_calls: z.array(toolCallSchema),
    citations: z.array(citationSchema).openapi({
      description:
        "The passages knowledge_search found in this turn, each once, in the order found (empty for user messages)",
    }),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    finish_reason: z.string().nullable(),
    version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The agent version that answered; null for the draft" }),
    source: z.enum(["model", "annotation"]).nullable().openapi({
      description:
        "Who wrote an answer: the model, or an annotation given in its place (annotation_reply); null for user messages",
    }),
    annotation: z
      .object({
        id: z.string(),
        similarity: z
          .number()
          .openapi({ description: "Cosine similarity (0–1) of the question to the annotated one" }),
      })
      .nullable()
      .openapi({ description: "The annotation that answered (`source: annotation`), else null" }),
    latency_ms: z.number().int().nullable().openapi({
      description:
        "From the turn's start to its stored answer (assistant messages); null for user messages and older answers",
    }),
    usage: usageSchema.nullable(),
    created_at: z.string(),
    feedback: z
      .array(
        z.object({
          source: z.enum(["user", "team"]),
          rating: z.enum(["like", "dislike"]),
          comment: z.string().nullable(),
          updated_at: z.string(),
        }),
      )
      .optional()
      .openapi({
        description: "Ratings of the answer: its end user's (an app's) and the team's; in message lists",
      }),
  })
  .openapi("Message");

export const conversationSchema = z
  .object({
    id: z.string().openapi({ example: "conv_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    agent_id: z.string(),
    title: z.string(),
    version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The agent version of its first turn; null for the draft" }),
    app_id: z
      .string()
      .nullable()
      .openapi({ description: "The app whose end user holds it; null for the workspace's own" }),
    end_user_id: z.string().nullable(),
    source: z.enum(CONVERSATION_SOURCES).openapi({
      description:
        "Where it was held: `studio` (signed in), `api` (an API key), `app` (an app's end user: web app, widget or app key), `mcp` (the workspace's MCP endpoint), `workflow` (a run_agent tool)",
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Conversation");

export const chatAnswerSchema = z
  .object({
    conversation_id: z.string(),
    message: messageSchema,
    steps: z.number().int().openapi({ description: "Model calls made (one per tool round)" }),
    finish_reason: z.string().openapi({
      description:
        "stop, length, content-filter, tool-calls, other, or step_limit when the step limit cut a tool loop",
    }),
    usage: usageSchema,
  })
  .openapi("ChatAnswer");

export const chatEventStreamSchema = z.string().openapi({
  description:
    "Server-Sent Events: `conversation` (the conversation), `text_delta` ({ text }), `tool_call` ({ id, name, input }), " +
    "`tool_result` ({ id, name, output, is_error }), then `finish` ({ conversation_id, message_id, finish_reason, steps, usage, citations }) " +
    "or `error` ({ status, error }).",
});
