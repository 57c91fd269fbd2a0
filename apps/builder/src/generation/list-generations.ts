import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { GenerationRow } from "./schema.ts";
import { type GenerationStatus, generations } from "./schema.ts";

export interface GenerationFilters {
  limit: number;
  cursor?: string | undefined;
  kind?: "image" | "video" | undefined;
  status?: GenerationStatus | undefined;
  model?: string | undefined;
}

/**
 * The workspace's generations, newest first, optionally of one kind, status or model; fetches
 * `limit + 1` rows so the caller can tell whether more exist.
 *
 * @example const rows = await listGenerations({ db }, "ws_1", { limit: 20, status: "succeeded" });
 */
export function listGenerations(
  { db }: { db: BuilderDb },
  workspaceId: string,
  filters: GenerationFilters,
): Promise<GenerationRow[]> {
  const newest = newestFirst(generations.id, filters);
  return db
    .select()
    .from(generations)
    .where(
      and(
        eq(generations.workspaceId, workspaceId),
        newest.olderThanCursor,
        filters.kind ? eq(generations.kind, filters.kind) : undefined,
        filters.status ? eq(generations.status, filters.status) : undefined,
        filters.model ? eq(generations.model, filters.model) : undefined,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
