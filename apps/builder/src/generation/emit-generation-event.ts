import type { Clock } from "@app/core";
import type { WebhooksDb } from "@app/webhooks";
import type { BuilderConfig } from "../config.ts";
import { emitEvent } from "../events/emit-event.ts";
import { toGenerationJson } from "./generation-json.ts";
import type { GenerationRow } from "./schema.ts";

/**
 * The event of a generation that just finished: `generation.succeeded`, or `generation.failed` for a
 * failed or canceled one (the snapshot's `status` tells which), with the generation as
 * GET /api/generations/{id} shows it. Call it in the transaction that writes the final status.
 *
 * @example await emitGenerationEvent({ db: tx, clock, config }, row);
 */
export function emitGenerationEvent(
  deps: { db: WebhooksDb; clock: Clock; config: Pick<BuilderConfig, "publicUrl"> },
  row: GenerationRow,
) {
  return emitEvent(deps, {
    workspaceId: row.workspaceId,
    type: row.status === "succeeded" ? "generation.succeeded" : "generation.failed",
    data: toGenerationJson(row, deps.config.publicUrl),
  });
}
