import { newId } from "@app/core";
import type { NewStoredFile } from "../files/record-files.ts";
import { copyOutput, OutputCopyError, removeStoredOutputs } from "./copy-output.ts";
import type { GenerationContext } from "./generation-context.ts";
import type { GenerationOutput, GenerationRow, GenerationStatus } from "./schema.ts";

/** The part of a Replicate prediction that moves a generation forward. */
export interface PredictionState {
  id: string;
  status: string;
  output?: unknown;
  error?: unknown;
  metrics?: { predict_time?: number | undefined; total_time?: number | undefined } | undefined;
}

/** A finished prediction made ready to record: the generation's final fields and its stored files. */
export interface Settlement {
  change: Pick<GenerationRow, "status" | "error" | "metrics" | "outputs">;
  files: NewStoredFile[];
  /** Storage keys written, to remove if the settlement is not recorded after all. */
  keys: string[];
}

/**
 * Our status for Replicate's.
 *
 * @example toStatus("aborted") // "canceled"
 */
export function toStatus(status: string): GenerationStatus {
  if (status === "succeeded" || status === "failed" || status === "canceled" || status === "starting")
    return status;
  // "aborted" is how Replicate reports a prediction stopped before it ran.
  if (status === "aborted") return "canceled";
  return "processing";
}

/**
 * Turns a finished prediction into what to record, copying a success's outputs into storage
 * first (keys derive from the generation, so two paths settling the same generation write the same
 * objects). An output that cannot be kept fails the generation. Undefined while unfinished.
 *
 * @example const settlement = await settlePrediction(context, { id: "gen_1", workspaceId: "ws_1" }, prediction);
 */
export async function settlePrediction(
  context: Pick<GenerationContext, "clock" | "logger" | "storage" | "settings" | "fetchOutput">,
  generation: Pick<GenerationRow, "id" | "workspaceId">,
  prediction: PredictionState,
): Promise<Settlement | undefined> {
  const status = toStatus(prediction.status);
  if (status === "starting" || status === "processing") return undefined;
  const metrics = {
    ...(prediction.metrics?.predict_time === undefined
      ? {}
      : { predict_time: prediction.metrics.predict_time }),
    ...(prediction.metrics?.total_time === undefined ? {} : { total_time: prediction.metrics.total_time }),
  };
  if (status !== "succeeded") {
    return {
      change: {
        status,
        error: status === "failed" ? errorText(prediction.error) : null,
        metrics: { ...metrics, output_count: 0, output_bytes: 0 },
        outputs: [],
      },
      files: [],
      keys: [],
    };
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
    await removeStoredOutputs(context, keys);
    if (!(error instanceof OutputCopyError)) throw error;
    context.logger.warn(
      { generation_id: generation.id, reason: error.message },
      "generation output not kept",
    );
    return { change: { status: "failed", error: error.message, metrics, outputs: [] }, files: [], keys: [] };
  }

  const now = context.clock.now();
  const files = copied.map((file) => ({
    id: newId("file", now.getTime()),
    workspaceId: generation.workspaceId,
    storageKey: file.key,
    contentType: file.contentType,
    sizeBytes: file.sizeBytes,
    generationId: generation.id,
    createdAt: now,
  }));
  const outputs: GenerationOutput[] = files.map((file) => ({
    file_id: file.id,
    content_type: file.contentType,
    size_bytes: file.sizeBytes,
  }));
  return {
    change: {
      status: "succeeded",
      error: null,
      outputs,
      metrics: {
        ...metrics,
        output_count: outputs.length,
        output_bytes: outputs.reduce((sum, output) => sum + output.size_bytes, 0),
      },
    },
    files,
    keys,
  };
}

function errorText(error: unknown): string {
  if (typeof error === "string" && error.trim() !== "") return error.slice(0, 4000);
  if (error === null || error === undefined) return "The prediction failed without an error message.";
  return JSON.stringify(error).slice(0, 4000);
}

/**
 * Whether a prediction's output names files to copy.
 *
 * @example hasOutputUrls(["https://replicate.delivery/x.png"]) // true
 */
export function hasOutputUrls(output: unknown): boolean {
  return outputUrls(output).length > 0;
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
