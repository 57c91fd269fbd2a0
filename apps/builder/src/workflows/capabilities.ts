import type { NodeLogs } from "@app/workflow";
import type { KnowledgeSearch, McpToolSource } from "../ports/tool-ports.ts";

/**
 * What workflow nodes use from parts of the builder that a deployment may lack (the sandbox needs
 * bubblewrap; knowledge bases). A node whose capability is absent fails with a clear code.
 */
export interface CodeRunRequest {
  workspaceId: string;
  language: "python" | "javascript" | "go" | "rust";
  code: string;
  input: Record<string, unknown>;
  signal: AbortSignal;
}

export interface CodeRunOutput {
  output: Record<string, unknown>;
  stdout: string;
  stderr: string;
  /** The sandbox cut stdout and stderr at its output limit. */
  truncated: boolean;
  durationMs: number;
  /** What it printed, cut as the node's record keeps it. */
  logs: NodeLogs;
}

export interface CodeCapability {
  run(request: CodeRunRequest): Promise<CodeRunOutput>;
  /**
   * The Code nodes of one workflow run, sharing that run's sandbox processes (a fresh process or
   * interpreter state per node all the same); `close` when the run ends. Without it, each node runs
   * on its own.
   */
  openRun?(workspaceId: string): { run(request: CodeRunRequest): Promise<CodeRunOutput>; close(): void };
}

/** Image (and video) generation on Replicate; resolves when the generation has finished. */
export interface GenerationCapability {
  generate(request: {
    workspaceId: string;
    kind: "image" | "video";
    model: string;
    input: Record<string, unknown>;
    signal: AbortSignal;
  }): Promise<{
    id: string;
    status: string;
    outputs: { url: string; content_type: string }[];
    error: string | null;
  }>;
}

export interface WorkflowCapabilities {
  code?: CodeCapability | undefined;
  /** The same retrieval agents use (knowledge/knowledge-ports.ts). */
  knowledge?: KnowledgeSearch | undefined;
  generation?: GenerationCapability | undefined;
  /** The workspace's MCP servers (src/mcp), for the `mcp_tool` tool. */
  mcp?: McpToolSource | undefined;
}
