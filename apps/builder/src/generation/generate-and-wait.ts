import { setTimeout as sleep } from "node:timers/promises";
import { createGeneration } from "./create-generation.ts";
import { findGeneration } from "./find-generation.ts";
import type { GenerationContext } from "./generation-context.ts";
import { isFinished } from "./generation-json.ts";
import type { GenerationRow } from "./schema.ts";

/** Seconds Replicate is asked to hold the create request open (its sync mode allows up to 60). */
const SYNC_WAIT_SECONDS = 60;
const FIRST_CHECK_MS = 250;
const MAX_CHECK_MS = 2_000;

/**
 * Starts a generation and resolves once it has finished (succeeded, failed or canceled), for
 * callers that need the outputs themselves: the workflows' generate_image tool. Replicate's sync
 * mode answers most image models in one request; longer ones are settled by the polling worker
 * or the webhook, and this only watches the row. Aborting stops the waiting, not the generation:
 * it stays in the gallery and finishes on its own.
 *
 * @example const row = await generateAndWait(context, "ws_1", { kind: "image", model: "black-forest-labs/flux-schnell", input: { prompt: "a fox" } }, signal);
 */
export async function generateAndWait(
  context: GenerationContext,
  workspaceId: string,
  request: { kind: "image" | "video"; model: string; input: Record<string, unknown> },
  signal: AbortSignal,
): Promise<GenerationRow> {
  let row = await createGeneration(context, workspaceId, { ...request, wait: SYNC_WAIT_SECONDS });
  let delayMs = FIRST_CHECK_MS;
  while (!isFinished(row)) {
    await sleep(delayMs, undefined, { signal });
    delayMs = Math.min(delayMs * 2, MAX_CHECK_MS);
    const current = await findGeneration(context, workspaceId, row.id);
    if (!current) throw new Error(`generation ${row.id} disappeared while it was awaited`);
    row = current;
  }
  return row;
}
