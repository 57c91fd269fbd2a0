import { and, eq } from "drizzle-orm";
import { forgetGenerationFiles } from "../files/record-files.ts";
import { removeStoredOutputs } from "./copy-output.ts";
import { GenerationErrors } from "./errors.ts";
import { findGeneration } from "./find-generation.ts";
import type { GenerationContext } from "./generation-context.ts";
import { isFinished } from "./generation-json.ts";
import { generations } from "./schema.ts";

/**
 * Deletes a generation and its stored files. An unfinished one is canceled on Replicate first (best
 * effort, with the token that created it), so nothing keeps running, and being billed, for a
 * generation nobody can see.
 *
 * @example await deleteGeneration(context, "ws_1", "gen_1");
 */
export async function deleteGeneration(
  context: GenerationContext,
  workspaceId: string,
  id: string,
): Promise<void> {
  const row = await findGeneration(context, workspaceId, id);
  if (!row) throw GenerationErrors.GENERATION_NOT_FOUND();
  const replicate =
    !isFinished(row) && row.predictionId ? await context.replicate.forGeneration(row) : undefined;
  if (replicate && row.predictionId) {
    await replicate.client.predictions
      .cancel(row.predictionId)
      .catch((error: unknown) =>
        context.logger.warn({ err: error, generation_id: id }, "cancel before delete failed"),
      );
  }
  const storageKeys = await context.db.transaction(async (tx) => {
    const keys = await forgetGenerationFiles(tx, workspaceId, id);
    await tx.delete(generations).where(and(eq(generations.id, id), eq(generations.workspaceId, workspaceId)));
    return keys;
  });
  // The rows are gone first, so a failed storage delete leaves bytes nobody can reach, never a dangling link.
  await removeStoredOutputs(context, storageKeys);
}
