// The evaluation gate of publishing, shared by agents and workflows (their setting and their
// publish), and the port through which they reach the evaluations feature that runs it.
import { patternProblem } from "@app/workflow";
import { z } from "@hono/zod-openapi";

/** Evaluators one evaluation runs. */
export const MAX_EVALUATORS = 10;
const MAX_EXPECTED_CHARS = 20_000;

const embeddingSetting = z
  .object({ provider: z.string().min(1).max(64), model: z.string().min(1).max(200) })
  .strict()
  .openapi({ description: 'The embedding model; default the built-in `{ provider: "local" }` embedder' });

export const evaluatorSpec = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("exact"),
        case_sensitive: z.boolean().default(true),
      })
      .strict(),
    z
      .object({
        type: z.literal("contains"),
        value: z
          .string()
          .max(MAX_EXPECTED_CHARS)
          .optional()
          .openapi({ description: "What the output must contain; default the row's expected" }),
        case_sensitive: z.boolean().default(false),
      })
      .strict(),
    z
      .object({
        type: z.literal("regex"),
        pattern: z
          .string()
          .min(1)
          .superRefine((value, context) => {
            const problem = patternProblem(value);
            if (problem) context.addIssue({ code: "custom", message: problem });
          }),
      })
      .strict(),
    z
      .object({
        type: z.literal("json_schema"),
        schema: z.record(z.string(), z.unknown()).superRefine((value, context) => {
          const problem = jsonSchemaProblem(value);
          if (problem) context.addIssue({ code: "custom", message: problem });
        }),
      })
      .strict(),
    z
      .object({
        type: z.literal("numeric"),
        tolerance: z
          .number()
          .min(0)
          .max(1e12)
          .default(0)
          .openapi({ description: "Largest absolute difference that still passes" }),
      })
      .strict(),
    z
      .object({
        type: z.literal("similarity"),
        threshold: z.number().min(0).max(1).default(0.8),
        embedding: embeddingSetting.optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("llm_judge"),
        rubric: z.string().min(1).max(4000),
        provider: z.string().min(1).max(64),
        model: z.string().min(1).max(200),
        pass_score: z.number().min(0).max(1).default(0.5),
      })
      .strict(),
  ])
  .openapi("Evaluator");

export type EvaluatorSpec = z.infer<typeof evaluatorSpec>;

export const evaluatorsField = z.array(evaluatorSpec).min(1).max(MAX_EVALUATORS);

export const evaluationGateSchema = z
  .object({
    dataset_id: z.string().max(64).openapi({ description: "A dataset of this workspace" }),
    evaluators: evaluatorsField,
    min_score: z
      .number()
      .min(0)
      .max(1)
      .openapi({ description: "The mean score (0–1) a draft needs to be published" }),
  })
  .strict()
  .openapi("EvaluationGate", {
    description:
      "Publishing first evaluates the draft on the dataset; a mean under min_score refuses with 409 evaluation_gate_failed (force: true publishes anyway)",
  });

export type EvaluationGate = z.infer<typeof evaluationGateSchema>;

/** What a publish records of its gate: the evaluation it ran, or that it was skipped with force. */
export const gateResultSchema = z
  .object({
    evaluation_id: z.string().nullable(),
    mean_score: z.number().nullable(),
    min_score: z.number(),
    is_skipped: z.boolean().openapi({ description: "Published with force: true, without evaluating" }),
  })
  .openapi("EvaluationGateResult");

export type GateResult = z.infer<typeof gateResultSchema>;

/** What publishing needs of the evaluations feature; set by `createBuilderApp`. */
export interface PublishGate {
  /** Whether the workspace has this dataset (a gate's setting is checked when saved). */
  hasDataset(workspaceId: string, datasetId: string): Promise<boolean>;
  /** Evaluates the draft under the gate and waits for it (bounded); throws 409 evaluation_gate_failed under min_score. */
  check(
    workspaceId: string,
    target: { agent_id: string } | { workflow_id: string },
    gate: EvaluationGate,
  ): Promise<GateResult>;
}

/**
 * What a publish records of its gate: nothing without a gate, `is_skipped` with force, else the
 * gate's evaluation (which throws 409 evaluation_gate_failed when the draft scores under min_score).
 *
 * @example const gateResult = await passGate(deps, workspaceId, { agent_id: id }, agent.evaluationGate, body.force);
 */
export async function passGate(
  deps: { publishGate?: PublishGate | undefined },
  workspaceId: string,
  target: { agent_id: string } | { workflow_id: string },
  gate: EvaluationGate | null,
  isForced: boolean | undefined,
): Promise<GateResult | null> {
  if (!gate) return null;
  if (isForced || !deps.publishGate) {
    return { evaluation_id: null, mean_score: null, min_score: gate.min_score, is_skipped: true };
  }
  return deps.publishGate.check(workspaceId, target, gate);
}

/** Why a JSON Schema cannot be used, or undefined. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return undefined;
  } catch (error) {
    return `is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}
