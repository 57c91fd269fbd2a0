export interface McpSettings {
  /** Connecting and listing tools; a turn waits at most this long for a server that does not answer. */
  connectTimeoutMs: number;
  /** One tool call. */
  callTimeoutMs: number;
  /** What a tool answers is prompt tokens (or a node's output): longer text is cut here. */
  maxResultChars: number;
  /** How long a listed tool set is reused without asking the server again (list_changed clears it sooner). */
  toolListTtlMs: number;
  /** Connections kept open in this process; the least recently used is closed beyond. */
  maxConnections: number;
}

export const defaultMcpSettings: McpSettings = {
  connectTimeoutMs: 10_000,
  callTimeoutMs: 60_000,
  maxResultChars: 32_000,
  toolListTtlMs: 60_000,
  maxConnections: 200,
};
