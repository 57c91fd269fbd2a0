import type { GenerationRow } from "./schema.ts";

export const TERMINAL_STATUSES = ["succeeded", "failed", "canceled"] as const;

/** Whether the generation can still change. */
export function isFinished(row: Pick<GenerationRow, "status">): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(row.status);
}

/**
 * The generation as the API answers it; output URLs point at our copy, never at Replicate's
 * (which expires after an hour).
 *
 * @example c.json(toGenerationJson(row, config.publicUrl), 201)
 */
export function toGenerationJson(row: GenerationRow, publicUrl: string) {
  return {
    id: row.id,
    kind: row.kind,
    model: row.model,
    status: row.status,
    input: row.input,
    outputs: row.outputs.map((output) => ({
      file_id: output.file_id,
      url: `${publicUrl}/api/files/${output.file_id}`,
      content_type: output.content_type,
      size_bytes: output.size_bytes,
    })),
    error: row.error,
    metrics: row.metrics,
    prediction_id: row.predictionId,
    credential_id: row.credentialId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
