/**
 * What workflow nodes use from parts of the builder that a deployment may lack (the sandbox needs
 * bubblewrap; knowledge bases). A node whose capability is absent fails with a clear code.
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
  knowledge?: KnowledgeCapability | undefined;
}
