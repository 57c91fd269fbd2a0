import { eq } from "drizzle-orm";
import { applyPrediction, type PredictionState } from "./apply-prediction.ts";
import { GenerationErrors } from "./errors.ts";
import type { GenerationContext } from "./generation-context.ts";
import { missingTokenMessage } from "./replicate-access.ts";
import { generations, replicateWebhookEvents } from "./schema.ts";
import { isValidWebhook, type WebhookHeaders } from "./verify-webhook.ts";

export type WebhookOutcome = "applied" | "duplicate" | "ignored";

/**
 * Applies a signed Replicate webhook. Replicate signs with the secret of the account whose token created
 * the prediction, so the generation (named by `generation_id` in the webhook URL) is looked up first and
 * the signature checked against that token's secret: 401 and no change otherwise. 404 while its
 * generation is not (yet) recorded, changing nothing either. Applied at most once per `webhook-id` (a
 * replay answers `duplicate` and changes nothing); the id is recorded only after the generation was
 * updated, so a delivery that failed half-way is applied again on Replicate's retry.
 *
 * @example const outcome = await receiveWebhook(context, headers, rawBody, "gen_1");
 */
export async function receiveWebhook(
  context: GenerationContext,
  headers: WebhookHeaders,
  body: string,
  generationId: string | undefined,
): Promise<WebhookOutcome> {
  const { db, clock } = context;
  // Unverified until the signature is checked: only used to find whose secret to check it with.
  const prediction = parsePrediction(body);
  const [row] = generationId
    ? await db.select().from(generations).where(eq(generations.id, generationId))
    : prediction
      ? await db.select().from(generations).where(eq(generations.predictionId, prediction.id))
      : [];
  // The generation is written once the create call returns; a webhook that overtakes that write gets
  // a 404 and Replicate delivers it again (the webhook id is not recorded, so the retry applies).
  if (!row) throw GenerationErrors.GENERATION_NOT_FOUND();
  const replicate = await context.replicate.forGeneration(row);
  if (!replicate) throw GenerationErrors.REPLICATE_TOKEN_MISSING({ message: missingTokenMessage(row) });
  const secret = await replicate.webhookSecret();
  if (!isValidWebhook(headers, body, secret, clock)) throw GenerationErrors.WEBHOOK_SIGNATURE_INVALID();
  const webhookId = headers.id ?? "";

  const [seen] = await db
    .select({ id: replicateWebhookEvents.id })
    .from(replicateWebhookEvents)
    .where(eq(replicateWebhookEvents.id, webhookId));
  if (seen) return "duplicate";
  if (!prediction || row.predictionId !== prediction.id) return "ignored";

  await applyPrediction(context, row, prediction);
  await db
    .insert(replicateWebhookEvents)
    .values({ id: webhookId, generationId: row.id, receivedAt: clock.now() })
    .onConflictDoNothing();
  return "applied";
}

function parsePrediction(body: string): PredictionState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.id !== "string" || typeof record.status !== "string") return undefined;
  const metrics =
    record.metrics !== null && typeof record.metrics === "object"
      ? (record.metrics as Record<string, unknown>)
      : {};
  return {
    id: record.id,
    status: record.status,
    output: record.output,
    error: record.error,
    metrics: {
      predict_time: typeof metrics.predict_time === "number" ? metrics.predict_time : undefined,
      total_time: typeof metrics.total_time === "number" ? metrics.total_time : undefined,
    },
  };
}
