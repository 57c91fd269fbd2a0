import type { Clock } from "@app/core";
import type { KnowledgeSearch } from "../agents/ports.ts";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { KnowledgeCapability } from "../workflows/capabilities.ts";
import { searchKnowledge } from "./search-knowledge.ts";

type SearchDeps = { db: BuilderDb; clock: Clock; config: BuilderConfig };

/**
 * Knowledge search for agents' `knowledge_search` tool: the default mode (hybrid, or full text
 * without pgvector), with document and chunk ids so answers can cite their sources.
 *
 * @example const deps = { ..., agentTools: { knowledge: agentKnowledgeSearch({ db, clock, config }) } };
 */
export function agentKnowledgeSearch(deps: SearchDeps): KnowledgeSearch {
  return {
    async search({ workspaceId, knowledgeBaseIds, query, topK }) {
      const { hits } = await searchKnowledge(deps, workspaceId, { knowledgeBaseIds, query, topK });
      return hits.map((hit) => ({
        documentId: hit.documentId,
        documentName: hit.documentName,
        chunkId: hit.chunkId,
        text: hit.text,
        score: hit.score,
      }));
    },
  };
}

/**
 * Knowledge search for workflows (the `knowledge_search` tool node and the LLM node's context).
 *
 * @example workflowCapabilities: { knowledge: workflowKnowledgeCapability({ db, clock, config }) }
 */
export function workflowKnowledgeCapability(deps: SearchDeps): KnowledgeCapability {
  return {
    async search({ workspaceId, knowledgeBaseIds, query, topK }) {
      const { hits } = await searchKnowledge(deps, workspaceId, { knowledgeBaseIds, query, topK });
      return hits.map((hit) => ({
        document_id: hit.documentId,
        document_name: hit.documentName,
        chunk_id: hit.chunkId,
        text: hit.text,
        score: hit.score,
      }));
    },
  };
}
