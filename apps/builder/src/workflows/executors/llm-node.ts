import { ApiError } from "@app/http";
import { type ExecutorContext, NodeExecutionError } from "@app/workflow";
import { citationJson, type KnowledgeSearch } from "../../ports/tool-ports.ts";
import type { GenerateRequest, generateForWorkspace } from "../../providers/generate-for-workspace.ts";

type Generate = (request: Omit<GenerateRequest, "source">) => ReturnType<typeof generateForWorkspace>;

const DEFAULT_TOP_K = 4;

/**
 * The LLM node: optional knowledge-base context retrieved with the prompt as the query (numbered for
 * the model to cite as [n], and output as `citations` in that order), then one model call; with
 * `json_schema` the model answers JSON that is also output as `json`.
 */
export function llmNodeExecutor(
  generate: Generate,
  knowledge: KnowledgeSearch | undefined,
  workspaceId: string,
) {
  return async ({ inputs, signal }: ExecutorContext<"llm">) => {
    let system = inputs.system;
    let citations: ReturnType<typeof citationJson>[] | undefined;
    const knowledgeBaseIds = inputs.knowledge_base_ids ?? [];
    if (knowledgeBaseIds.length > 0) {
      if (!knowledge)
        throw new NodeExecutionError(
          "knowledge_unavailable",
          "Knowledge bases are not available on this server.",
        );
      const chunks = await knowledge.search({
        workspaceId,
        knowledgeBaseIds,
        query: inputs.prompt,
        topK: inputs.top_k ?? DEFAULT_TOP_K,
      });
      const context = chunks
        .map((chunk, i) => `[${i + 1}] (${chunk.documentName}) ${chunk.text}`)
        .join("\n\n");
      system = `${system ? `${system}\n\n` : ""}Use this context when it helps; cite it as [n].\n\n${context}`;
      citations = chunks.map(citationJson);
    }
    const answer = await retryable(generate, {
      workspaceId,
      provider: inputs.provider,
      model: inputs.model,
      system,
      prompt: inputs.prompt,
      temperature: inputs.temperature,
      maxTokens: inputs.max_tokens,
      jsonSchema: inputs.json_schema,
      signal,
    });
    return {
      outputs: {
        text: answer.text,
        usage: answer.usage,
        ...(inputs.json_schema ? { json: answer.json ?? null } : {}),
        ...(citations ? { citations } : {}),
      },
      usage: answer.usage,
    };
  };
}

/**
 * A provider's 429 or 5xx that said when to come back (Retry-After) fails the node with that wait,
 * which the node's `retry` honours; other errors pass as they are.
 */
async function retryable(generate: Generate, request: Parameters<Generate>[0]) {
  try {
    return await generate(request);
  } catch (error) {
    const seconds = error instanceof ApiError ? Number(error.headers["Retry-After"]) : Number.NaN;
    if (!(error instanceof ApiError) || !Number.isFinite(seconds)) throw error;
    throw new NodeExecutionError(error.code, error.message, { retryAfterMs: seconds * 1000 });
  }
}
