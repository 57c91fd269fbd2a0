import { z } from "@hono/zod-openapi";
import { evaluatorSpec, evaluatorsField } from "../versions/evaluation-gate.ts";

export { type EvaluatorSpec, evaluatorSpec, evaluatorsField } from "../versions/evaluation-gate.ts";

/** Rows a dataset holds at most. */
export const MAX_DATASET_ROWS = 1000;
/** Characters of one row's input or expected answer (a workflow row's inputs as JSON). */
export const MAX_ROW_CHARS = 20_000;
/** Characters of a CSV import's body (under the 1 MiB limit of JSON bodies). */
export const MAX_CSV_CHARS = 900_000;

const textField = z.string().max(MAX_ROW_CHARS);

const expectedField = textField
  .nullable()
  .optional()
  .openapi({ description: "The answer the evaluators compare with" });

const inputsField = z
  .record(z.string(), z.unknown())
  .refine((inputs) => JSON.stringify(inputs).length <= MAX_ROW_CHARS, {
    message: `is longer than ${MAX_ROW_CHARS} characters as JSON`,
  })
  .openapi({ description: "A workflow's inputs (its Start node's fields)" });

// One or the other, as two strict shapes: the document states the rule the validation applies.
const datasetRowInput = z.union([
  z
    .object({ input: textField.openapi({ description: "An agent's message" }), expected: expectedField })
    .strict(),
  z.object({ inputs: inputsField, expected: expectedField }).strict(),
]);

/** A row as the use-cases take it: an agent's `input` or a workflow's `inputs`. */
export type DatasetRowInput = {
  input?: string | undefined;
  inputs?: Record<string, unknown> | undefined;
  expected?: string | null | undefined;
};

const datasetName = z.string().trim().min(1).max(200);

export const createDatasetBody = z
  .union([
    z
      .object({
        name: datasetName,
        rows: z
          .array(datasetRowInput)
          .max(MAX_DATASET_ROWS)
          .default([])
          .openapi({
            description: `Rows of { input } (an agent's) or { inputs } (a workflow's), with an optional expected; at most ${MAX_DATASET_ROWS}`,
          }),
      })
      .strict(),
    z
      .object({
        name: datasetName,
        from_messages: z.array(z.string().max(64)).min(1).max(MAX_DATASET_ROWS).openapi({
          description:
            "Ids of messages from the workspace's conversations: each user message becomes a row's input and the assistant's answer that followed it the row's expected (an assistant message's id takes the question before it)",
        }),
      })
      .strict(),
  ])
  .openapi("CreateDatasetRequest");

export type CreateDatasetInput = z.infer<typeof createDatasetBody>;

export const importRowsBody = z
  .object({
    csv: z.string().min(1).max(MAX_CSV_CHARS).openapi({
      description:
        "CSV with a header row: `input` (or one column per workflow input, named `inputs.<field>`) and optionally `expected`",
    }),
  })
  .strict()
  .openapi("ImportDatasetRowsRequest");

export const datasetRowSchema = z
  .object({
    position: z.number().int(),
    input: z.string().nullable(),
    inputs: z.record(z.string(), z.unknown()).nullable(),
    expected: z.string().nullable(),
  })
  .openapi("DatasetRow");

export const datasetSchema = z
  .object({
    id: z.string().openapi({ example: "ds_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    object: z.literal("dataset"),
    name: z.string(),
    row_count: z.number().int(),
    created_at: z.string(),
    rows: z.array(datasetRowSchema).optional().openapi({ description: "The rows, on GET of one dataset" }),
  })
  .openapi("Dataset");

export const importResultSchema = z
  .object({
    imported: z.number().int(),
    row_count: z.number().int(),
  })
  .openapi("DatasetImportResult");

const versionField = z
  .union([z.number().int().min(1).max(2_147_483_647), z.literal("published"), z.literal("draft")])
  .default("draft")
  .openapi({ description: 'A version number, "published" (the newest), or "draft" (default)' });

const targetSchema = z.union([
  z.object({ agent_id: z.string().max(64), version: versionField }).strict(),
  z.object({ workflow_id: z.string().max(64), version: versionField }).strict(),
]);

export type EvaluationTarget = z.infer<typeof targetSchema>;

export const createEvaluationBody = z
  .object({
    target: targetSchema,
    dataset_id: z.string().max(64),
    evaluators: evaluatorsField,
  })
  .strict()
  .openapi("CreateEvaluationRequest");

export type CreateEvaluationInput = z.infer<typeof createEvaluationBody>;

const scoreSchema = z.object({
  evaluator: z.string(),
  score: z.number(),
  passed: z.boolean(),
  reason: z.string().nullable(),
});

export const evaluationRowSchema = z
  .object({
    position: z.number().int(),
    status: z.enum(["pending", "running", "succeeded", "failed"]),
    input: z.string().nullable(),
    inputs: z.record(z.string(), z.unknown()).nullable(),
    expected: z.string().nullable(),
    output: z.string().nullable(),
    error: z.string().nullable(),
    scores: z.array(scoreSchema),
    score: z.number().nullable().openapi({ description: "The mean of this row's evaluator scores" }),
    latency_ms: z.number().int().nullable(),
    credits: z.number().int().nullable(),
  })
  .openapi("EvaluationRow");

export const evaluationSchema = z
  .object({
    id: z.string().openapi({ example: "eval_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    object: z.literal("evaluation"),
    target: z.object({
      agent_id: z.string().nullable(),
      workflow_id: z.string().nullable(),
      version: z.union([z.number().int(), z.literal("draft")]),
    }),
    dataset_id: z.string(),
    evaluators: z.array(evaluatorSpec),
    status: z.enum(["running", "succeeded", "failed"]),
    reason: z.string().openapi({ description: '"api", or "publish_gate" for one a publish started' }),
    rows_total: z.number().int(),
    rows_done: z.number().int(),
    mean_score: z
      .number()
      .nullable()
      .openapi({ description: "The mean of the finished rows' scores (a failed row scores 0)" }),
    mean_by_evaluator: z.record(z.string(), z.number()),
    credits: z.number().int(),
    mean_latency_ms: z.number().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    rows: z
      .array(evaluationRowSchema)
      .optional()
      .openapi({ description: "Every row, on GET of one evaluation" }),
  })
  .openapi("Evaluation");

export const compareQuery = z.object({
  a: z
    .string()
    .max(64)
    .openapi({ param: { name: "a", in: "query" } }),
  b: z
    .string()
    .max(64)
    .openapi({ param: { name: "b", in: "query" } }),
});

export const comparisonSchema = z
  .object({
    a: evaluationSchema,
    b: evaluationSchema,
    mean_delta: z.number().nullable(),
    rows: z.array(
      z.object({
        position: z.number().int(),
        input: z.string().nullable(),
        inputs: z.record(z.string(), z.unknown()).nullable(),
        expected: z.string().nullable(),
        a: evaluationRowSchema.nullable(),
        b: evaluationRowSchema.nullable(),
        change: z.enum(["improved", "regressed", "unchanged", "output_changed", "missing"]),
        score_delta: z.number().nullable(),
      }),
    ),
  })
  .openapi("EvaluationComparison");
