import { newId } from "@app/core";
import { and, eq, isNull, or } from "drizzle-orm";
import { applyPrediction } from "./apply-prediction.ts";
import { checkModelInput, parseModelRef } from "./check-model-input.ts";
import { GenerationErrors } from "./errors.ts";
import type { GenerationContext } from "./generation-context.ts";
import type { GenerationRow } from "./generation-json.ts";
import { replicateErrorInfo } from "./replicate-access.ts";
import { generations } from "./schema.ts";

export interface CreateGenerationInput {
  kind: "image" | "video";
  model: string;
  input: Record<string, unknown>;
  /** Seconds to let Replicate hold the request open (its sync mode); absent or 0 answers at once. */
  wait?: number | undefined;
}

/** The path Replicate posts completions to; the generation id lets a webhook that outruns our own write find its row. */
export const REPLICATE_WEBHOOK_PATH = "/api/replicate/webhook";

/**
 * Starts a generation: checks the input against the model's schema, records the generation, and
 * creates the prediction on Replicate (with our webhook when `PUBLIC_URL` is set). With `wait` the
 * request is held until Replicate finishes or the wait runs out; a finished prediction has its
 * outputs copied before this returns. Otherwise the polling worker or the webhook takes over.
 *
 * @example const row = await createGeneration(context, "ws_1", { kind: "image", model: "black-forest-labs/flux-schnell", input: { prompt: "a fox" }, wait: 30 });
 */
export async function createGeneration(
  context: GenerationContext,
  workspaceId: string,
  request: CreateGenerationInput,
): Promise<GenerationRow> {
  const { db, clock, config, settings } = context;
  const client = context.replicate.client();
  const ref = parseModelRef(request.model);
  await checkModelInput(context, ref, request.input);

  const now = clock.now();
  const id = newId("gen", now.getTime());
  const webhookUrl = config.hasPublicUrl
    ? `${config.publicUrl}${REPLICATE_WEBHOOK_PATH}?generation_id=${encodeURIComponent(id)}`
    : null;
  const [inserted] = await db
    .insert(generations)
    .values({
      id,
      workspaceId,
      kind: request.kind,
      model: request.model,
      status: "starting",
      input: request.input,
      webhookUrl,
      nextPollAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!inserted) throw new Error("insert returned no row");

  let prediction: Awaited<ReturnType<typeof client.predictions.create>>;
  try {
    prediction = await client.predictions.create({
      ...(ref.version ? { version: ref.version } : { model: `${ref.owner}/${ref.name}` }),
      input: request.input,
      ...(webhookUrl ? { webhook: webhookUrl, webhook_events_filter: ["completed" as const] } : {}),
      ...(request.wait ? { wait: request.wait } : {}),
    });
  } catch (error) {
    // Nothing was started on Replicate, so nothing is left to track or bill.
    await db.delete(generations).where(eq(generations.id, id));
    throw toApiError(error, request.model);
  }

  const afterCreate = clock.now();
  const firstPollMs = webhookUrl ? settings.webhookFallbackMs : settings.pollBaseMs;
  const [row] = await db
    .update(generations)
    .set({
      predictionId: prediction.id,
      nextPollAt: new Date(afterCreate.getTime() + firstPollMs),
      updatedAt: afterCreate,
    })
    .where(
      and(
        eq(generations.id, id),
        or(isNull(generations.predictionId), eq(generations.predictionId, prediction.id)),
      ),
    )
    .returning();
  // A webhook that arrived first may already have finished it; that row is then the truth.
  const [stored] = row ? [row] : await db.select().from(generations).where(eq(generations.id, id));
  if (!stored) throw GenerationErrors.GENERATION_NOT_FOUND();
  return applyPrediction(context, stored, prediction);
}

function toApiError(error: unknown, model: string) {
  const info = replicateErrorInfo(error);
  if (!info)
    return GenerationErrors.REPLICATE_FAILED({
      message: `Replicate could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    });
  if (info.status === 422)
    return GenerationErrors.INVALID_INPUT({
      message: `Replicate rejected the input: ${info.detail}`,
      param: "input",
    });
  if (info.status === 404)
    return GenerationErrors.MODEL_NOT_FOUND({ message: `Replicate has no model ${model}.`, param: "model" });
  return GenerationErrors.REPLICATE_FAILED({
    message: `Replicate answered ${info.status}: ${info.detail}`,
  });
}
