import { newId } from "@app/core";
import { and, eq, inArray } from "drizzle-orm";
import { storedFiles } from "../files/schema.ts";
import { copyOutput, OutputCopyError } from "./copy-output.ts";
import type { GenerationContext } from "./generation-context.ts";
import { type GenerationRow, isFinished } from "./generation-json.ts";
import { type GenerationOutput, type GenerationStatus, generations } from "./schema.ts";

/** The part of a Replicate prediction that moves a generation forward. */
export interface PredictionState {
  id: string;
  status: string;
  output?: unknown;
  error?: unknown;
  metrics?: { predict_time?: number | undefined; total_time?: number | undefined } | undefined;
}

const UNFINISHED: GenerationStatus[] = ["starting", "processing"];

/**
 * Applies what Replicate reports about a prediction to its generation, whichever path it came by
 * (the synchronous answer, a webhook, a poll). A success is only recorded once every output has been
 * copied into storage; the final write is fenced on the generation still being unfinished, so two
 * paths racing to finish it record it once. Answers the generation as it now stands.
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
  const status = toStatus(prediction.status);
  const now = clock.now();

  if (status === "starting" || status === "processing") {
    if (status === generation.status) return generation;
    const [row] = await db
      .update(generations)
      .set({ status, updatedAt: now })
      .where(and(eq(generations.id, generation.id), inArray(generations.status, UNFINISHED)))
      .returning();
    return row ?? (await current(context, generation.id)) ?? generation;
  }

  const metrics = {
    ...(prediction.metrics?.predict_time === undefined
      ? {}
      : { predict_time: prediction.metrics.predict_time }),
    ...(prediction.metrics?.total_time === undefined ? {} : { total_time: prediction.metrics.total_time }),
  };
  if (status !== "succeeded") {
    const row = await finish(context, generation, {
      status,
      error: status === "failed" ? errorText(prediction.error) : null,
      metrics: { ...metrics, output_count: 0, output_bytes: 0 },
    });
    return row ?? generation;
  }

  const urls = outputUrls(prediction.output).slice(0, context.settings.maxOutputs);
  const keys = urls.map((_, index) => `generations/${generation.workspaceId}/${generation.id}/${index}`);
  const copied: { key: string; contentType: string; sizeBytes: number }[] = [];
  try {
    // One at a time: outputs are few, and it bounds disk and network use per generation.
    for (const [index, url] of urls.entries()) {
      const key = keys[index] ?? "";
      copied.push({ key, ...(await copyOutput(context, url, key)) });
    }
  } catch (error) {
    await Promise.all(keys.map((key) => context.storage.delete(key).catch(() => undefined)));
    if (!(error instanceof OutputCopyError)) throw error;
    context.logger.warn(
      { generation_id: generation.id, reason: error.message },
      "generation output not kept",
    );
    return (
      (await finish(context, generation, { status: "failed", error: error.message, metrics })) ?? generation
    );
  }

  const files = copied.map((file) => ({ id: newId("file", now.getTime()), ...file }));
  const outputs: GenerationOutput[] = files.map((file) => ({
    file_id: file.id,
    content_type: file.contentType,
    size_bytes: file.sizeBytes,
  }));
  const row = await finish(
    context,
    generation,
    {
      status: "succeeded",
      error: null,
      outputs,
      metrics: {
        ...metrics,
        output_count: outputs.length,
        output_bytes: outputs.reduce((sum, output) => sum + output.size_bytes, 0),
      },
    },
    files.map((file) => ({
      id: file.id,
      workspaceId: generation.workspaceId,
      storageKey: file.key,
      contentType: file.contentType,
      sizeBytes: file.sizeBytes,
      generationId: generation.id,
      createdAt: now,
    })),
  );
  // Another path finished it first with a different outcome (a cancel), or it was deleted meanwhile:
  // what we copied is nobody's.
  if (row?.status !== "succeeded")
    await Promise.all(keys.map((key) => context.storage.delete(key).catch(() => undefined)));
  return row ?? generation;
}

async function finish(
  context: GenerationContext,
  generation: GenerationRow,
  change: Pick<GenerationRow, "status" | "error" | "metrics"> & { outputs?: GenerationOutput[] },
  files: (typeof storedFiles.$inferInsert)[] = [],
): Promise<GenerationRow | undefined> {
  const now = context.clock.now();
  const row = await context.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(generations)
      .set({ ...change, completedAt: now, updatedAt: now, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(generations.id, generation.id), inArray(generations.status, UNFINISHED)))
      .returning();
    if (updated && files.length > 0) await tx.insert(storedFiles).values(files);
    return updated;
  });
  if (row) {
    context.logger.info({ generation_id: row.id, status: row.status }, "generation finished");
    return row;
  }
  return current(context, generation.id);
}

/** The generation as stored now; undefined when it was deleted meanwhile. */
async function current(context: GenerationContext, id: string): Promise<GenerationRow | undefined> {
  const [row] = await context.db.select().from(generations).where(eq(generations.id, id));
  return row;
}

function toStatus(status: string): GenerationStatus {
  if (status === "succeeded" || status === "failed" || status === "canceled" || status === "starting")
    return status;
  // "aborted" is how Replicate reports a prediction stopped before it ran.
  if (status === "aborted") return "canceled";
  return "processing";
}

function errorText(error: unknown): string {
  if (typeof error === "string" && error.trim() !== "") return error.slice(0, 4000);
  if (error === null || error === undefined) return "The prediction failed without an error message.";
  return JSON.stringify(error).slice(0, 4000);
}

/** Output URLs of a prediction: a string, a list of strings, or the URL values of an object. */
function outputUrls(output: unknown): string[] {
  const candidates = Array.isArray(output)
    ? output
    : output !== null && typeof output === "object"
      ? Object.values(output)
      : [output];
  return candidates.filter(
    (value): value is string => typeof value === "string" && /^https?:\/\//.test(value),
  );
}
