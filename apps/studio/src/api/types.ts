export interface User {
  id: string;
  email: string;
  name: string;
}

export interface Session {
  session: { id: string; expiresAt: string };
  user: User;
}

export interface ProviderModel {
  id: string;
  capabilities: string[];
  context_window?: number;
}

export interface Provider {
  id: string;
  name: string;
  env_key: string | null;
  requires_base_url: boolean;
  models: ProviderModel[];
}

export interface Agent {
  id: string;
  name: string;
  description: string;
  provider: string;
  model: string;
  instructions: string;
  temperature: number | null;
  tools: unknown[];
  knowledge_base_ids: string[];
  memory_turns: number;
  /** Served as a tool of the workspace's MCP endpoint, /api/mcp. */
  mcp_exposed: boolean;
  created_at: string;
  updated_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}
