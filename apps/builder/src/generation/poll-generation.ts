import { and, eq } from "drizzle-orm";
import { applyPrediction } from "./apply-prediction.ts";
import type { GenerationContext } from "./generation-context.ts";
import { type GenerationRow, isFinished } from "./generation-json.ts";
import { generations } from "./schema.ts";

/**
 * One poll of a claimed generation: asks Replicate for its prediction and applies the answer; an
 * unfinished one (or an error reaching Replicate) is rescheduled with exponential backoff, and the
 * lease is given back either way.
 *
 * @example await pollGeneration(context, claimed, "wrk_1");
 */
export async function pollGeneration(
  context: GenerationContext,
  generation: GenerationRow,
  leaseOwner: string,
): Promise<GenerationRow> {
  const { db, clock, logger, settings } = context;
  let row = generation;
  try {
    const prediction = await context.replicate.client().predictions.get(generation.predictionId ?? "");
    row = await applyPrediction(context, generation, prediction);
  } catch (error) {
    logger.warn({ err: error, generation_id: generation.id }, "polling Replicate failed; will retry");
  }
  if (isFinished(row)) return row;
  const backoff = Math.min(
    settings.maxPollMs,
    settings.pollBaseMs * 2 ** Math.max(0, generation.pollCount - 1),
  );
  const delay = generation.webhookUrl ? Math.max(settings.webhookFallbackMs, backoff) : backoff;
  const [updated] = await db
    .update(generations)
    .set({ nextPollAt: new Date(clock.now().getTime() + delay), leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(generations.id, generation.id), eq(generations.leaseOwner, leaseOwner)))
    .returning();
  return updated ?? row;
}
