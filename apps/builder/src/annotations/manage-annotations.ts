import { type Clock, newId } from "@app/core";
import { containsPattern, newestFirst, type PageRequest } from "@app/db";
import { and, eq, ilike, or } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { CreateAnnotationInput, UpdateAnnotationInput } from "./contract.ts";
import { type AnnotationRow, annotations } from "./schema.ts";

/**
 * Stores a question → answer pair of the agent. Its embedding is computed when a reply first needs
 * it (find-annotation-reply.ts), with whatever model the agent's setting names then.
 *
 * @example const row = await createAnnotation({ db, clock }, workspaceId, agentId, { question, answer });
 */
export async function createAnnotation(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  agentId: string,
  input: CreateAnnotationInput,
): Promise<AnnotationRow> {
  const now = clock.now();
  const [row] = await db
    .insert(annotations)
    .values({
      id: newId("ann", now.getTime()),
      workspaceId,
      agentId,
      question: input.question,
      answer: input.answer,
      messageId: input.message_id ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

/**
 * The agent's annotations, newest first (`limit + 1` rows); with `q`, those whose question or
 * answer contains it.
 *
 * @example const rows = await listAnnotations(db, workspaceId, agentId, { limit: 20, q: "refund" });
 */
export function listAnnotations(
  db: BuilderDb,
  workspaceId: string,
  agentId: string,
  page: PageRequest & { q?: string | undefined },
): Promise<AnnotationRow[]> {
  const newest = newestFirst(annotations.id, page);
  const pattern = page.q ? containsPattern(page.q) : undefined;
  return db
    .select()
    .from(annotations)
    .where(
      and(
        eq(annotations.workspaceId, workspaceId),
        eq(annotations.agentId, agentId),
        pattern ? or(ilike(annotations.question, pattern), ilike(annotations.answer, pattern)) : undefined,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/**
 * One of the agent's annotations, or undefined.
 *
 * @example const row = await findAnnotation(db, workspaceId, agentId, "ann_…");
 */
export async function findAnnotation(
  db: BuilderDb,
  workspaceId: string,
  agentId: string,
  id: string,
): Promise<AnnotationRow | undefined> {
  const [row] = await db
    .select()
    .from(annotations)
    .where(
      and(eq(annotations.id, id), eq(annotations.workspaceId, workspaceId), eq(annotations.agentId, agentId)),
    )
    .limit(1);
  return row;
}

/**
 * Changes an annotation's question or answer; a new question drops the embedding (recomputed on
 * the next reply). Undefined when there is no such annotation.
 *
 * @example const row = await updateAnnotation({ db, clock }, workspaceId, agentId, id, { answer: "…" });
 */
export async function updateAnnotation(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  agentId: string,
  id: string,
  input: UpdateAnnotationInput,
): Promise<AnnotationRow | undefined> {
  const [row] = await db
    .update(annotations)
    .set({
      ...(input.question === undefined
        ? {}
        : { question: input.question, embedding: null, embeddingModel: null }),
      ...(input.answer === undefined ? {} : { answer: input.answer }),
      updatedAt: clock.now(),
    })
    .where(
      and(eq(annotations.id, id), eq(annotations.workspaceId, workspaceId), eq(annotations.agentId, agentId)),
    )
    .returning();
  return row;
}

/**
 * Deletes an annotation; answers whether there was one. Messages it answered keep its id.
 *
 * @example const isDeleted = await deleteAnnotation(db, workspaceId, agentId, id);
 */
export async function deleteAnnotation(
  db: BuilderDb,
  workspaceId: string,
  agentId: string,
  id: string,
): Promise<boolean> {
  const rows = await db
    .delete(annotations)
    .where(
      and(eq(annotations.id, id), eq(annotations.workspaceId, workspaceId), eq(annotations.agentId, agentId)),
    )
    .returning({ id: annotations.id });
  return rows.length > 0;
}
