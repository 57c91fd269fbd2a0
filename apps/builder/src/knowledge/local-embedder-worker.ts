// The body of the local embedder's thread (see local-embedder-thread.ts). Loaded by file, also from
// the compiled builder (scripts/build.ts points `import.meta.url` at the sources), and run by Node's
// own type stripping: keep it and what it imports erasable TypeScript without package imports.
import { parentPort } from "node:worker_threads";
import { LOCAL_EMBEDDING_DIMENSIONS, localEmbedding } from "./local-embedder.ts";
import { vectorLiteral } from "./vector-literal.ts";

/** What the ingestion worker asks: texts to embed, and an id to answer with. */
export type EmbedRequest = { id: number; texts: string[] };
/** The vectors as pgvector literals, in the texts' order, or why they could not be computed. */
export type EmbedReply = { id: number; literals: string[] } | { id: number; error: string };

parentPort?.on("message", (request: EmbedRequest) => {
  let reply: EmbedReply;
  try {
    reply = {
      id: request.id,
      literals: request.texts.map((text) => vectorLiteral(localEmbedding(text, LOCAL_EMBEDDING_DIMENSIONS))),
    };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
