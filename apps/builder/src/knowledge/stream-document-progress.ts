import { type PollOutcome, pollLoop } from "@app/core";
import type { EventWriter } from "@app/http";
import type { BuilderDb } from "../db/index.ts";
import { findDocument } from "./find-document.ts";
import { toDocumentJson } from "./knowledge-json.ts";
import type { ProgressEvent, ProgressEvents } from "./progress-events.ts";
import type { DocumentRow } from "./schema.ts";

/** How often a stream reads the document again, for workers of other processes. */
const PROGRESS_POLL_MS = 250;

const isFinished = (status: string) => status === "ready" || status === "failed";

/**
 * Streams a document's ingestion as `document` events until it is ready or failed (or `deleted`):
 * each step this process's worker publishes as it happens, and the stored row every 250 ms for
 * workers elsewhere. A state is sent once. Ends when the client goes away.
 *
 * @example return eventStream(c, (stream, signal) => streamDocumentProgress(deps, workspaceId, row, stream, signal), onError);
 */
export async function streamDocumentProgress(
  deps: { db: BuilderDb; events: ProgressEvents },
  workspaceId: string,
  first: DocumentRow,
  stream: EventWriter,
  signal: AbortSignal,
): Promise<void> {
  const pending: ProgressEvent[] = [];
  let row = first;
  let lastSent = "";
  const send = async (document: ReturnType<typeof toDocumentJson>) => {
    const state = `${document.status}:${document.progress}:${document.attempts}`;
    if (state === lastSent) return;
    lastSent = state;
    await stream.send("document", document);
  };

  let isEnded = false;
  const { promise: ended, resolve: end, reject: fail } = Promise.withResolvers<void>();
  const finish = () => {
    isEnded = true;
    end();
  };
  const step = async (): Promise<PollOutcome> => {
    if (isEnded) return "idle";
    const event = pending.shift();
    if (event && !isFinished(event.status)) {
      // Events from this process's worker carry each step; the rest of the row is as last read.
      await send({ ...toDocumentJson(row), status: event.status, progress: event.progress });
      return "busy";
    }
    // A poll (or a final event): the database has the whole row, and workers of other processes.
    const next = await findDocument(deps.db, workspaceId, row.id);
    if (!next) {
      await stream.send("deleted", { id: row.id });
      finish();
      return "idle";
    }
    row = next;
    await send(toDocumentJson(row));
    if (isFinished(row.status)) finish();
    return pending.length > 0 ? "busy" : "idle";
  };

  const loop = pollLoop({
    work: step,
    minIdleMs: PROGRESS_POLL_MS,
    onError: (error) => {
      isEnded = true;
      fail(error);
    },
  });
  const unsubscribe = deps.events.subscribe(first.id, (event) => {
    pending.push(event);
    loop.wake();
  });
  const onAbort = () => finish();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    await send(toDocumentJson(row));
    if (isFinished(row.status) || signal.aborted) return;
    loop.start();
    await ended;
  } finally {
    signal.removeEventListener("abort", onAbort);
    unsubscribe();
    await loop.stop();
  }
}
