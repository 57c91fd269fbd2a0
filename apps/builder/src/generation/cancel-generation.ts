import { applyPrediction } from "./apply-prediction.ts";
import { GenerationErrors } from "./errors.ts";
import { findGeneration } from "./find-generation.ts";
import type { GenerationContext } from "./generation-context.ts";
import { isFinished } from "./generation-json.ts";
import { missingTokenMessage, replicateErrorInfo } from "./replicate-access.ts";
import type { GenerationRow } from "./schema.ts";

/**
 * Cancels an unfinished generation on Replicate, with the token that created it, and records what
 * Replicate answers (usually `canceled`; a prediction that finished in the meantime is recorded as
 * finished). 409 when it had already finished here, 424 when no token is left to reach it with.
 *
 * @example const row = await cancelGeneration(context, "ws_1", "gen_1");
 */
export async function cancelGeneration(
  context: GenerationContext,
  workspaceId: string,
  id: string,
): Promise<GenerationRow> {
  const row = await findGeneration(context, workspaceId, id);
  if (!row) throw GenerationErrors.GENERATION_NOT_FOUND();
  if (isFinished(row) || !row.predictionId)
    throw GenerationErrors.GENERATION_FINISHED({ message: `The generation is already ${row.status}.` });
  const replicate = await context.replicate.forGeneration(row);
  if (!replicate) throw GenerationErrors.REPLICATE_TOKEN_MISSING({ message: missingTokenMessage(row) });
  let prediction: Awaited<ReturnType<typeof replicate.client.predictions.cancel>>;
  try {
    prediction = await replicate.client.predictions.cancel(row.predictionId);
  } catch (error) {
    const info = replicateErrorInfo(error);
    throw GenerationErrors.REPLICATE_FAILED({
      message: `Replicate did not cancel the prediction: ${info ? `${info.status} ${info.detail}` : String(error)}`,
    });
  }
  return applyPrediction(context, row, prediction);
}
