// What agent tools need from features that live elsewhere (the sandbox, knowledge bases, the
// workflow engine). Each is optional in Deps: a tool whose port is absent tells the model it is
// unavailable instead of failing the turn.

export type CodeLanguage = "python" | "javascript" | "go" | "rust";

/** One run of user code; `input` is the tool's arguments and `output` what the program returned. */
export interface CodeRunner {
  runCode(request: {
    /** Whose turn runs the code (its time is billed there). */
    workspaceId: string;
    language: CodeLanguage;
    code: string;
    input: unknown;
    timeoutMs: number;
  }): Promise<{
    output: unknown;
    stdout: string;
    stderr: string;
    error?: string;
  }>;
}

export interface KnowledgeChunk {
  documentId: string;
  documentName: string;
  chunkId: string;
  text: string;
  score: number;
}

/**
 * A retrieved chunk as tools answer it (snake_case like the API), with the ids an answer cites.
 *
 * @example return { results: chunks.map(citationJson) };
 */
export function citationJson(chunk: KnowledgeChunk) {
  return {
    document_id: chunk.documentId,
    document_name: chunk.documentName,
    chunk_id: chunk.chunkId,
    text: chunk.text,
    score: chunk.score,
  };
}

/** Retrieval over a workspace's knowledge bases, best chunks first: agents' tool, workflows' tool and LLM node context. */
export interface KnowledgeSearch {
  search(request: {
    workspaceId: string;
    knowledgeBaseIds: string[];
    query: string;
    topK: number;
  }): Promise<KnowledgeChunk[]>;
}

/** Runs a workflow of the workspace to completion and answers its outputs. */
export interface WorkflowRunner {
  runWorkflow(request: {
    workspaceId: string;
    workflowId: string;
    inputs: Record<string, unknown>;
    /** How deeply nested the calling turn is (a workflow's run_agent tool nests turns in runs). */
    depth: number;
  }): Promise<Record<string, unknown>>;
}

export interface AgentToolPorts {
  code?: CodeRunner;
  knowledge?: KnowledgeSearch;
  workflows?: WorkflowRunner;
}
