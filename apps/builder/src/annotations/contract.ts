import { listQuerySchema, patchBody } from "@app/http";
import { z } from "@hono/zod-openapi";

/** Longest question and answer an annotation keeps (an answer is as long as a chat message may be). */
export const QUESTION_MAX_LENGTH = 4000;
export const ANSWER_MAX_LENGTH = 32_000;
/** Rows one CSV import takes (the body is also under the API's 1 MiB JSON limit). */
export const IMPORT_MAX_ROWS = 10_000;

const question = z.string().trim().min(1).max(QUESTION_MAX_LENGTH).openapi({
  example: "How do I reset my password?",
});
const answer = z.string().trim().min(1).max(ANSWER_MAX_LENGTH).openapi({
  example: "Open Settings → Security and choose Reset password; the link is valid for 24 hours.",
});

export const createAnnotationBody = z
  .object({
    question,
    answer,
    message_id: z.string().max(64).optional().openapi({
      description: "The logged answer this annotation corrects (the studio's Logs → annotate), for reference",
    }),
  })
  .strict()
  .openapi("CreateAnnotationRequest");

export const updateAnnotationBody = patchBody(z.object({ question, answer }).partial()).openapi(
  "UpdateAnnotationRequest",
);

export const annotationListQuery = listQuerySchema.extend({
  q: z
    .string()
    .max(200)
    .optional()
    .openapi({
      param: { name: "q", in: "query" },
      description: "Only annotations whose question or answer contains this text (case-insensitive)",
    }),
});

export const annotationParams = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
  annotation_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "annotation_id", in: "path" } }),
});

export const annotationSchema = z
  .object({
    id: z.string().openapi({ example: "ann_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    agent_id: z.string(),
    question: z.string(),
    answer: z.string(),
    message_id: z.string().nullable(),
    hit_count: z.number().int().openapi({ description: "Questions answered with this annotation" }),
    last_hit_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Annotation");

export const importResultSchema = z
  .object({
    created: z.number().int().openapi({ description: "New annotations" }),
    updated: z.number().int().openapi({
      description: "Annotations whose question the agent already had: their answer was replaced",
    }),
  })
  .openapi("AnnotationImportResult");

export type CreateAnnotationInput = z.infer<typeof createAnnotationBody>;
export type UpdateAnnotationInput = z.infer<typeof updateAnnotationBody>;
