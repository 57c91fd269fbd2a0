import { and, eq, inArray } from "drizzle-orm";
import { recordStoredFiles } from "../files/record-files.ts";
import { removeStoredOutputs } from "./copy-output.ts";
import { emitGenerationEvent } from "./emit-generation-event.ts";
import type { GenerationContext } from "./generation-context.ts";
import { isFinished } from "./generation-json.ts";
import type { GenerationRow } from "./schema.ts";
import { type GenerationStatus, generations } from "./schema.ts";
import { type PredictionState, settlePrediction, toStatus } from "./settle-prediction.ts";

export type { PredictionState } from "./settle-prediction.ts";

const UNFINISHED: GenerationStatus[] = ["starting", "processing"];

/**
 * Applies what Replicate reports about a prediction to a stored generation, whichever path it came
 * by (a webhook, a poll, a cancel). A success is only recorded once every output has been copied
 * into storage; the final write is fenced on the generation still being unfinished, so two paths
 * racing to finish it record it once. Answers the generation as it now stands.
 *
 * @example const row = await applyPrediction(context, generation, await client.predictions.get(id));
 */
export async function applyPrediction(
  context: GenerationContext,
  generation: GenerationRow,
  prediction: PredictionState,
): Promise<GenerationRow> {
  const { db, clock } = context;
  if (isFinished(generation)) return generation;
  const now = clock.now();
  const settlement = await settlePrediction(context, generation, prediction);

  if (!settlement) {
    const status = toStatus(prediction.status);
    if (status === generation.status) return generation;
    const [row] = await db
      .update(generations)
      .set({ status, updatedAt: now })
      .where(and(eq(generations.id, generation.id), inArray(generations.status, UNFINISHED)))
      .returning();
    return row ?? (await current(context, generation.id)) ?? generation;
  }

  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(generations)
      .set({ ...settlement.change, completedAt: now, updatedAt: now, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(generations.id, generation.id), inArray(generations.status, UNFINISHED)))
      .returning();
    if (!updated) return undefined;
    await recordStoredFiles(tx, settlement.files);
    await emitGenerationEvent({ db: tx, clock, config: context.config }, updated);
    return updated;
  });
  if (row) {
    context.deliveries?.wake();
    context.logger.info({ generation_id: row.id, status: row.status }, "generation finished");
    return row;
  }
  const latest = await current(context, generation.id);
  // Another path finished it first with a different outcome (a cancel), or it was deleted meanwhile:
  // what we copied is nobody's.
  if (latest?.status !== "succeeded") await removeStoredOutputs(context, settlement.keys);
  return latest ?? generation;
}

/** The generation as stored now; undefined when it was deleted meanwhile. */
async function current(context: GenerationContext, id: string): Promise<GenerationRow | undefined> {
  const [row] = await context.db.select().from(generations).where(eq(generations.id, id));
  return row;
}
