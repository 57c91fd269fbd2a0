import type { Clock } from "@app/core";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { KnowledgeSearch } from "../ports/tool-ports.ts";
import { searchKnowledge } from "./search-knowledge.ts";

type SearchDeps = { db: BuilderDb; clock: Clock; config: BuilderConfig };

/**
 * Knowledge search for agents' and workflows' `knowledge_search` tools and the LLM node's context:
 * the default mode (hybrid, or full text without pgvector), with document and chunk ids so answers
 * can cite their sources.
 *
 * @example const knowledge = knowledgeSearch({ db, clock, config }); // agentTools.knowledge and workflowCapabilities.knowledge
 */
export function knowledgeSearch(deps: SearchDeps): KnowledgeSearch {
  return {
    async search({ workspaceId, knowledgeBaseIds, query, topK }) {
      const { hits } = await searchKnowledge(deps, workspaceId, { knowledgeBaseIds, query, topK });
      return hits.map((hit) => ({
        knowledgeBaseId: hit.knowledgeBaseId,
        documentId: hit.documentId,
        documentName: hit.documentName,
        chunkId: hit.chunkId,
        position: hit.position,
        text: hit.text,
        score: hit.score,
      }));
    },
  };
}
