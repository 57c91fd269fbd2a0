import type { Clock } from "@app/core";
import type { WebhooksDb } from "@app/webhooks";
import { emitEvent } from "../events/emit-event.ts";
import { toDocumentJson } from "./knowledge-json.ts";
import type { DocumentRow } from "./schema.ts";

/**
 * The `document.ready` or `document.failed` event of a document that just reached that status, with
 * the document as GET /api/rag/documents/{id} shows it. Call it in the transaction that wrote the status.
 *
 * @example await emitDocumentEvent({ db: tx, clock }, row);
 */
export function emitDocumentEvent(deps: { db: WebhooksDb; clock: Clock }, row: DocumentRow) {
  return emitEvent(deps, {
    workspaceId: row.workspaceId,
    type: row.status === "ready" ? "document.ready" : "document.failed",
    data: toDocumentJson(row),
  });
}
