import { newId } from "@app/core";
import type { Prediction } from "replicate";
import { countCreditsSpent } from "../billing/append-ledger-entries.ts";
import { chargeGeneration, requireCredits } from "../billing/meter.ts";
import { priceOfGeneration } from "../billing/price-table.ts";
import { applyPrediction } from "./apply-prediction.ts";
import { checkModelInput, parseModelRef } from "./check-model-input.ts";
import { emitGenerationEvent } from "./emit-generation-event.ts";
import { GenerationErrors } from "./errors.ts";
import type { GenerationContext } from "./generation-context.ts";
import { replicateErrorInfo } from "./replicate-access.ts";
import type { GenerationRow } from "./schema.ts";
import { generations } from "./schema.ts";
import { hasOutputUrls, settlePrediction, toStatus } from "./settle-prediction.ts";

export interface CreateGenerationInput {
  kind: "image" | "video";
  model: string;
  input: Record<string, unknown>;
  /** Seconds to let Replicate hold the request open (its sync mode); absent or 0 answers at once. */
  wait?: number | undefined;
}

/** The path Replicate posts completions to; the generation id in its query names the generation. */
export const REPLICATE_WEBHOOK_PATH = "/api/replicate/webhook";

/**
 * Starts a generation: checks the input against the model's schema, creates the prediction on
 * Replicate with the workspace's token (its newest Replicate credential, else the server's; 424 with
 * neither), with our webhook when `PUBLIC_URL` is set, and records the generation with the credential
 * it used, so its polls, cancel and webhook use the same account. With `wait` the
 * request is held until Replicate finishes or the wait runs out; a finished prediction has its
 * outputs copied before this returns. Otherwise the polling worker or the webhook takes over.
 *
 * @example const row = await createGeneration(context, "ws_1", { kind: "image", model: "black-forest-labs/flux-schnell", input: { prompt: "a fox" }, wait: 30 });
 */
export async function createGeneration(
  context: GenerationContext,
  workspaceId: string,
  request: CreateGenerationInput,
): Promise<GenerationRow> {
  const { db, clock, config, settings } = context;
  const replicate = await context.replicate.forWorkspace(workspaceId);
  await requireCredits(context, workspaceId, {
    work: `This ${request.kind} generation`,
    cost: priceOfGeneration(config.billing.prices, request),
  });
  const ref = parseModelRef(request.model);
  await checkModelInput(context, replicate, ref, request.input);

  const id = newId("gen", clock.now().getTime());
  const webhookUrl = config.hasPublicUrl
    ? `${config.publicUrl}${REPLICATE_WEBHOOK_PATH}?generation_id=${encodeURIComponent(id)}`
    : null;
  let prediction: Prediction;
  try {
    prediction = await replicate.client.predictions.create({
      ...(ref.version ? { version: ref.version } : { model: `${ref.owner}/${ref.name}` }),
      input: request.input,
      ...(webhookUrl ? { webhook: webhookUrl, webhook_events_filter: ["completed" as const] } : {}),
      ...(request.wait ? { wait: request.wait } : {}),
    });
  } catch (error) {
    throw toApiError(error, request.model);
  }

  // The row is written after the prediction exists: one write when it is unfinished or finished
  // without files. A success with outputs is written as `processing` before its outputs are copied, so
  // a crash during a long copy leaves a generation the worker finishes, not an untracked prediction.
  // A webhook that overtakes the write finds no generation, answers 404 and is delivered again.
  const status = toStatus(prediction.status);
  const hasOutputsToCopy = status === "succeeded" && hasOutputUrls(prediction.output);
  const settlement = hasOutputsToCopy
    ? undefined
    : await settlePrediction(context, { id, workspaceId }, prediction);
  const now = clock.now();
  // While this request copies the outputs, the worker leaves the generation alone.
  const firstPollMs = hasOutputsToCopy
    ? settings.leaseMs
    : webhookUrl
      ? settings.webhookFallbackMs
      : settings.pollBaseMs;
  // The generation, its charge and (for a prediction that finished without files to copy) its event
  // commit together.
  const { row, charged } = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(generations)
      .values({
        id,
        workspaceId,
        kind: request.kind,
        model: request.model,
        status: hasOutputsToCopy ? "processing" : status,
        input: request.input,
        predictionId: prediction.id,
        credentialId: replicate.credentialId,
        webhookUrl,
        nextPollAt: new Date(now.getTime() + firstPollMs),
        createdAt: now,
        updatedAt: now,
        ...(settlement ? { ...settlement.change, completedAt: now } : {}),
      })
      .returning();
    if (!inserted) throw new Error("insert returned no row");
    // Replicate accepted the prediction: its compute is paid for whatever the outcome.
    const charged = await chargeGeneration({ db: tx, clock, config }, inserted);
    if (settlement) await emitGenerationEvent({ db: tx, clock, config }, inserted);
    return { row: inserted, charged };
  });
  countCreditsSpent(charged);
  if (settlement) context.deliveries?.wake();
  return hasOutputsToCopy ? applyPrediction(context, row, prediction) : row;
}

function toApiError(error: unknown, model: string) {
  const info = replicateErrorInfo(error);
  if (!info)
    return GenerationErrors.REPLICATE_FAILED({
      message: `Replicate could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    });
  if (info.status === 422)
    return GenerationErrors.INVALID_INPUT({
      message: `Replicate rejected the input: ${info.detail}`,
      param: "input",
    });
  if (info.status === 404)
    return GenerationErrors.MODEL_NOT_FOUND({ message: `Replicate has no model ${model}.`, param: "model" });
  return GenerationErrors.REPLICATE_FAILED({
    message: `Replicate answered ${info.status}: ${info.detail}`,
  });
}
