import type { TokenUsage } from "@app/workflow";

/**
 * What workflow nodes use from other features. Each is optional so the workflow feature does not
 * depend on their folders; a node whose capability is not wired fails with a clear code.
 */
export interface CodeCapability {
  run(request: {
    workspaceId: string;
    language: "python" | "javascript" | "go" | "rust";
    code: string;
    input: Record<string, unknown>;
    signal: AbortSignal;
  }): Promise<{ output: Record<string, unknown>; stdout: string; stderr: string; durationMs: number }>;
}

export interface LlmCapability {
  generate(request: {
    workspaceId: string;
    provider: string;
    model: string;
    system?: string | undefined;
    prompt: string;
    temperature?: number | undefined;
    maxTokens?: number | undefined;
    jsonSchema?: Record<string, unknown> | undefined;
    signal: AbortSignal;
  }): Promise<{ text: string; json?: unknown; usage: TokenUsage }>;
}

export interface KnowledgeCapability {
  search(request: {
    workspaceId: string;
    knowledgeBaseIds: string[];
    query: string;
    topK: number;
  }): Promise<
    { document_id: string; document_name: string; chunk_id: string; text: string; score: number }[]
  >;
}

export interface WorkflowCapabilities {
  code?: CodeCapability | undefined;
  llm?: LlmCapability | undefined;
  knowledge?: KnowledgeCapability | undefined;
}
