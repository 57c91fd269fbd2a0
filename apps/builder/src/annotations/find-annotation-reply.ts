import type { Clock } from "@app/core";
import { queryRows } from "@app/db";
import type { Logger } from "@app/http";
import { and, eq, isNull, ne, or, type SQLWrapper, sql } from "drizzle-orm";
import type { AnnotationReplySetting } from "../agents/schema.ts";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { EMBEDDING_BATCH_SIZE, embedderFor } from "../knowledge/embedders.ts";
import { annotations } from "./schema.ts";

/** The annotation a question is answered with, and how similar the two questions are (0–1). */
export interface AnnotationMatch {
  id: string;
  answer: string;
  similarity: number;
}

type ReplyDeps = { db: BuilderDb; clock: Clock; config: BuilderConfig; logger: Logger };

/**
 * The agent's annotation whose question is the most similar to `question` by the cosine of their
 * embeddings (the setting's model), when that similarity reaches the setting's threshold; else
 * undefined. Annotations not yet embedded with that model are embedded first, a batch per call, and
 * kept. An embedding that fails (a provider down, a refused key) is logged and the question goes
 * to the model as if annotation replies were off: a turn never fails for want of an annotation.
 *
 * @example const match = await findAnnotationReply(deps, workspaceId, agent.id, agent.annotationReply, message);
 */
export async function findAnnotationReply(
  deps: ReplyDeps,
  workspaceId: string,
  agentId: string,
  setting: AnnotationReplySetting | null,
  question: string,
): Promise<AnnotationMatch | undefined> {
  if (!setting?.enabled) return undefined;
  const model = `${setting.embedding.provider}/${setting.embedding.model}`;
  const ofAgent = and(eq(annotations.workspaceId, workspaceId), eq(annotations.agentId, agentId));
  try {
    const [counts] = await deps.db
      .select({ count: sql<number>`count(*)::int` })
      .from(annotations)
      .where(ofAgent);
    if (!counts?.count) return undefined;
    const embedder = await embedderFor(deps, workspaceId, setting.embedding);
    const stale = and(ofAgent, or(isNull(annotations.embeddingModel), ne(annotations.embeddingModel, model)));
    for (;;) {
      const batch = await deps.db
        .select({ id: annotations.id, question: annotations.question })
        .from(annotations)
        .where(stale)
        .limit(EMBEDDING_BATCH_SIZE);
      if (batch.length === 0) break;
      const vectors = await embedder.embed(batch.map((row) => row.question));
      const values = batch.map((row, index) => ({ id: row.id, embedding: normalised(vectors[index] ?? []) }));
      await deps.db.execute(sql`update ${annotations} a set embedding = array(
          select jsonb_array_elements_text(v.embedding)::real), embedding_model = ${model}
        from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id text, embedding jsonb)
        where a.id = v.id`);
    }
    const [asked] = await embedder.embed([question]);
    const vector = `{${normalised(asked ?? []).join(",")}}`;
    // Both vectors are normalised, so their dot product is the cosine.
    const [best] = await queryRows<{ id: string; answer: string; similarity: number | null }>(
      deps.db,
      sql`select id, answer, (select sum(a * b) from unnest(embedding, ${vector}::real[]) as t(a, b))::float8
          as similarity
        from ${annotations}
        where workspace_id = ${workspaceId} and agent_id = ${agentId} and embedding_model = ${model}
        order by similarity desc nulls last, id limit 1`,
    );
    if (!best || best.similarity === null) return undefined;
    // Float rounding can take the cosine of a question with itself a hair past 1.
    const similarity = Math.min(1, Math.max(0, best.similarity));
    return similarity >= setting.threshold ? { id: best.id, answer: best.answer, similarity } : undefined;
  } catch (error) {
    deps.logger.warn(
      { err: error, agent_id: agentId, embedding: model },
      "annotation reply skipped: the question could not be compared with the annotations",
    );
    return undefined;
  }
}

/**
 * The write that counts a hit on the annotation, stored with the turn it answered.
 *
 * @example await saveTurn(db, turn, user, assistant, [annotationHitWrite(db, match.id, now)]);
 */
export function annotationHitWrite(db: BuilderDb, annotationId: string, at: Date): SQLWrapper {
  return db
    .update(annotations)
    .set({ hitCount: sql`${annotations.hitCount} + 1`, lastHitAt: at })
    .where(eq(annotations.id, annotationId));
}

function normalised(vector: number[]): number[] {
  const length = Math.hypot(...vector) || 1;
  return vector.map((value) => value / length);
}
