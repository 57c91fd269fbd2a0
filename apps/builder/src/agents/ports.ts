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

/** Retrieval over a workspace's knowledge bases, best chunks first. */
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
