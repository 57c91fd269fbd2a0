import { z } from "@hono/zod-openapi";
import { MODEL_REF_PATTERN } from "./check-model-input.ts";

export const generateBody = z
  .object({
    model: z
      .string()
      .max(300)
      .regex(MODEL_REF_PATTERN, "must be owner/name or owner/name:<64-hex version>")
      .openapi({ example: "black-forest-labs/flux-schnell" }),
    input: z
      .record(z.string(), z.unknown())
      .refine((input) => JSON.stringify(input).length <= 256 * 1024, "must be at most 256 KiB as JSON")
      .openapi({
        description: "The model's inputs, checked against its published input schema",
        example: { prompt: "a red fox in the snow" },
      }),
    wait: z.number().int().min(0).max(60).optional().openapi({
      description:
        "Seconds to hold the request while Replicate runs (its sync mode). Absent or 0: answer at once with `starting`.",
    }),
  })
  .strict()
  .openapi("GenerateRequest");

export const generationOutputSchema = z
  .object({
    file_id: z.string(),
    url: z
      .string()
      .openapi({ description: "Our copy, at /api/files/{id}; Replicate's own URL expires after an hour" }),
    content_type: z.string().openapi({ example: "image/png" }),
    size_bytes: z.number().int(),
  })
  .openapi("GenerationOutput");

export const generationSchema = z
  .object({
    id: z.string().openapi({ example: "gen_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    kind: z.enum(["image", "video"]),
    model: z.string(),
    status: z.enum(["starting", "processing", "succeeded", "failed", "canceled"]),
    input: z.record(z.string(), z.unknown()),
    outputs: z.array(generationOutputSchema),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Replicate's error text when the generation failed" }),
    metrics: z
      .object({
        predict_time: z.number().optional().openapi({ description: "Seconds of model time (billed)" }),
        total_time: z.number().optional(),
        output_count: z.number().int().optional(),
        output_bytes: z.number().int().optional(),
      })
      .openapi({ description: "Usage recorded for billing" }),
    prediction_id: z.string().nullable(),
    credential_id: z.string().nullable().openapi({
      description:
        "The workspace's Replicate credential whose token created the prediction (and follows it); null for the server's REPLICATE_API_TOKEN",
    }),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .openapi("Generation");

export const modelSummarySchema = z
  .object({
    id: z.string().openapi({ example: "black-forest-labs/flux-schnell" }),
    owner: z.string(),
    name: z.string(),
    description: z.string(),
    kind: z.enum(["image", "video"]),
    run_count: z.number().int().nullable(),
    cover_image_url: z.string().nullable(),
  })
  .openapi("ReplicateModel");

export const modelListSchema = z
  .object({
    data: z.array(modelSummarySchema),
    source: z.enum(["replicate", "curated"]).openapi({
      description:
        "`curated`: there is no Replicate token (no Replicate credential, no REPLICATE_API_TOKEN) or Replicate did not answer, so a built-in list is shown",
    }),
  })
  .openapi("ReplicateModelList");

export const modelQuery = z.object({
  type: z
    .enum(["image", "video"])
    .default("image")
    .openapi({ param: { name: "type", in: "query" } }),
  query: z
    .string()
    .trim()
    .max(200)
    .optional()
    .openapi({ param: { name: "query", in: "query" } }),
});

export const modelInputSchema = z
  .object({
    name: z.string().openapi({ example: "aspect_ratio" }),
    type: z.enum(["string", "integer", "number", "boolean", "array", "object"]).nullable(),
    title: z.string(),
    description: z.string(),
    format: z.string().nullable().openapi({ description: "e.g. `uri` for an image input" }),
    default: z.unknown().openapi({ description: "The model's default, null when it has none" }),
    enum: z.array(z.unknown()).nullable(),
    minimum: z.number().nullable(),
    maximum: z.number().nullable(),
    is_required: z.boolean(),
  })
  .openapi("ReplicateModelInput");

export const modelInputsSchema = z
  .object({
    model: z.string(),
    inputs: z.array(modelInputSchema).nullable().openapi({
      description:
        "In the model's order; null when the model publishes no input schema or Replicate cannot be asked now",
    }),
  })
  .openapi("ReplicateModelInputs");

export const modelParams = z.object({
  owner: z
    .string()
    .max(100)
    .openapi({ param: { name: "owner", in: "path" } }),
  name: z
    .string()
    .max(100)
    .openapi({ param: { name: "name", in: "path" } }),
});

export const generationFilters = z.object({
  kind: z
    .enum(["image", "video"])
    .optional()
    .openapi({ param: { name: "kind", in: "query" } }),
  status: z
    .enum(["starting", "processing", "succeeded", "failed", "canceled"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  model: z
    .string()
    .max(300)
    .optional()
    .openapi({ param: { name: "model", in: "query" } }),
});

export const webhookQuery = z.object({
  generation_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "generation_id", in: "query" } }),
});

export const webhookAnswerSchema = z
  .object({ received: z.literal(true), outcome: z.enum(["applied", "duplicate", "ignored"]) })
  .openapi("ReplicateWebhookAnswer");

export type GenerateBody = z.infer<typeof generateBody>;
