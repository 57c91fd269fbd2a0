// The public API of an app (/api/public/apps/{slug}/…): what the web app, the widget and a
// customer's own frontend call on behalf of an end user.
import { listQuerySchema } from "@app/http";
import { z } from "@hono/zod-openapi";
import { citationSchema } from "../agents/chat-contract.ts";

export const slugParam = z.object({
  slug: z
    .string()
    .max(63)
    .openapi({ param: { name: "slug", in: "path" }, example: "support-bot" }),
});

export const slugAndIdParams = slugParam.extend({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

const startInputSchema = z.object({
  name: z.string(),
  type: z.string(),
  required: z.boolean(),
  description: z.string().optional(),
});

export const publicAppSchema = z
  .object({
    slug: z.string(),
    kind: z.enum(["agent", "workflow"]),
    title: z.string(),
    description: z.string(),
    theme: z.object({ color: z.string(), dark: z.boolean() }),
    starter_prompts: z.array(z.string()),
    inputs: z
      .array(startInputSchema)
      .openapi({ description: "A workflow app's Start inputs; empty for agents" }),
  })
  .openapi("PublicApp");

export const endUserSessionSchema = z
  .object({
    token: z.string().openapi({ description: "Send as `Authorization: Bearer <token>`" }),
    end_user_id: z.string(),
    expires_at: z.string(),
  })
  .openapi("EndUserSession");

export const publicChatBody = z
  .object({
    message: z.string().trim().min(1).max(32_000),
    conversation_id: z.string().max(64).optional(),
  })
  .strict()
  .openapi("PublicChatRequest");

export const publicConversationSchema = z
  .object({ id: z.string(), title: z.string(), created_at: z.string(), updated_at: z.string() })
  .openapi("PublicConversation");

const ratingSchema = z.enum(["like", "dislike"]);

export const publicMessageSchema = z
  .object({
    id: z.string(),
    conversation_id: z.string(),
    role: z.enum(["user", "assistant"]),
    content: z.string(),
    citations: z.array(citationSchema),
    created_at: z.string(),
    feedback: z
      .object({ rating: ratingSchema, comment: z.string().nullable() })
      .nullable()
      .openapi({ description: "This end user's rating of the answer" }),
  })
  .openapi("PublicMessage");

export const feedbackBody = z
  .object({
    rating: ratingSchema.nullable().openapi({ description: "null takes a rating back" }),
    comment: z.string().max(2000).optional(),
  })
  .strict()
  .openapi("FeedbackRequest");

export const feedbackSchema = z
  .object({ message_id: z.string(), rating: ratingSchema.nullable(), comment: z.string().nullable() })
  .openapi("Feedback");

export const publicRunBody = z
  .object({ inputs: z.record(z.string(), z.unknown()).default({}) })
  .strict()
  .openapi("PublicRunRequest");

export const publicRunSchema = z
  .object({
    id: z.string(),
    status: z.enum(["running", "waiting", "succeeded", "failed", "cancelled"]),
    outputs: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    elapsed_ms: z.number().nullable(),
  })
  .openapi("PublicRun");

export const publicListQuery = listQuerySchema;
