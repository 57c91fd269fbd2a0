import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { CreateKnowledgeBaseInput } from "./contract.ts";
import { LOCAL_EMBEDDING_DIMENSIONS } from "./local-embedder.ts";
import type { KnowledgeBaseRow } from "./schema.ts";
import { knowledgeBases } from "./schema.ts";

/**
 * Creates a knowledge base with its embedding setting. The local embedder's width is known now;
 * a provider model's is recorded when its first answer arrives.
 *
 * @example const kb = await createKnowledgeBase({ db, clock }, workspaceId, { name: "Docs", description: "", embedding: { provider: "local", model: "feature-hashing-v1" } });
 */
export async function createKnowledgeBase(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  input: CreateKnowledgeBaseInput,
): Promise<KnowledgeBaseRow> {
  const now = clock.now();
  const [row] = await db
    .insert(knowledgeBases)
    .values({
      id: newId("kb", now.getTime()),
      workspaceId,
      name: input.name,
      description: input.description,
      embeddingProvider: input.embedding.provider,
      embeddingModel: input.embedding.model,
      embeddingDimensions: input.embedding.provider === "local" ? LOCAL_EMBEDDING_DIMENSIONS : null,
      language: input.language,
      rerankProvider: input.rerank?.provider ?? null,
      rerankModel: input.rerank?.model ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}
