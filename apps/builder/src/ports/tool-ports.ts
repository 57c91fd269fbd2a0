// What agent tools and workflow nodes need from features that live elsewhere (the sandbox, knowledge bases, the
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
  knowledgeBaseId: string;
  documentId: string;
  documentName: string;
  chunkId: string;
  /** 0-based order of the chunk in its document: where a citation opens it. */
  position: number;
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
    knowledge_base_id: chunk.knowledgeBaseId,
    document_id: chunk.documentId,
    document_name: chunk.documentName,
    chunk_id: chunk.chunkId,
    position: chunk.position,
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
  /** The JSON Schema of the workflow's inputs (its Start node's); undefined when the workspace has no such workflow. */
  inputSchema(request: {
    workspaceId: string;
    workflowId: string;
  }): Promise<Record<string, unknown> | undefined>;
}

/** A tool of an MCP server as the server lists it. */
export interface McpToolInfo {
  name: string;
  title?: string | undefined;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
}

/** What one MCP tool call answered, already cut to the size limit. */
export interface McpToolOutcome {
  text: string;
  structured?: unknown;
  isError: boolean;
  durationMs: number;
}

/** A workspace's MCP server opened for one turn or node: its tools and a way to call them. */
export interface McpToolset {
  serverName: string;
  tools: McpToolInfo[];
  /** Why the server could not be listed now; `tools` are then the ones it listed last. */
  unavailable?: string | undefined;
  /** Throws (with a message naming the server and the fix) when the server cannot be reached. */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolOutcome>;
}

/** Tools of the workspace's MCP servers (src/mcp). */
export interface McpToolSource {
  /** Undefined when the workspace has no such server. */
  open(request: {
    workspaceId: string;
    serverId: string;
    signal: AbortSignal;
  }): Promise<McpToolset | undefined>;
}

export interface AgentToolPorts {
  code?: CodeRunner;
  knowledge?: KnowledgeSearch;
  workflows?: WorkflowRunner;
  mcp?: McpToolSource;
}
