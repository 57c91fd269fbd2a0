import { and, eq } from "drizzle-orm";
import { applyPrediction, type PredictionState } from "./apply-prediction.ts";
import type { GenerationContext } from "./generation-context.ts";
import { isFinished } from "./generation-json.ts";
import { missingTokenMessage, replicateErrorInfo } from "./replicate-access.ts";
import type { GenerationRow } from "./schema.ts";
import { generations } from "./schema.ts";

/**
 * One poll of a claimed generation: asks Replicate for its prediction, with the token that created it,
 * and applies the answer; an unfinished one (or an error reaching Replicate) is rescheduled with
 * exponential backoff, and the lease is given back either way. A generation that can never be followed
 * again fails with the reason instead of being polled forever: no token is left (its credential was
 * deleted and there is no other), or Replicate does not know the prediction under the token in use.
 *
 * @example await pollGeneration(context, claimed, "wrk_1");
 */
export async function pollGeneration(
  context: GenerationContext,
  generation: GenerationRow,
  leaseOwner: string,
): Promise<GenerationRow> {
  const { db, clock, logger, settings } = context;
  const predictionId = generation.predictionId ?? "";
  const fail = (error: string): PredictionState => ({ id: predictionId, status: "failed", error });
  let row = generation;
  try {
    const replicate = await context.replicate.forGeneration(generation);
    if (!replicate) {
      row = await applyPrediction(context, generation, fail(missingTokenMessage(generation)));
    } else {
      try {
        const prediction = await replicate.client.predictions.get(predictionId);
        row = await applyPrediction(context, generation, prediction);
      } catch (error) {
        // Predictions are kept by Replicate; a 404 means the token in use belongs to another account
        // (the credential that created it was replaced by another account's), and will not change.
        if (replicateErrorInfo(error)?.status !== 404) throw error;
        const why =
          replicate.credentialId === generation.credentialId
            ? ""
            : " (the Replicate credential that started it was deleted, and the token used instead belongs to another account)";
        row = await applyPrediction(
          context,
          generation,
          fail(`Replicate does not know the prediction ${predictionId} under the token in use${why}.`),
        );
      }
    }
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
