export type Capability = "chat" | "tools" | "vision" | "embeddings" | "json";

export interface ModelInfo {
  id: string;
  capabilities: Capability[];
  context_window?: number;
}

export interface ProviderInfo {
  id: string;
  name: string;
  /** Server-wide key variable; per-workspace keys are stored with POST /api/credentials. */
  env_key: string | null;
  /** Whether the provider needs a base URL (self-hosted or aggregator endpoints). */
  requires_base_url: boolean;
  /** Where its SDK sends requests unless a credential names another base URL. */
  default_base_url: string | null;
  docs_url: string;
  models: ModelInfo[];
}

const chatTools: Capability[] = ["chat", "tools", "json"];
const chatToolsVision: Capability[] = ["chat", "tools", "vision", "json"];

/**
 * The providers agents and LLM nodes can be bound to, with their well-known models.
 * Models not listed here can still be named (providers add models faster than we release).
 */
export const PROVIDERS: readonly ProviderInfo[] = [
  {
    id: "openai",
    name: "OpenAI",
    env_key: "OPENAI_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.openai.com/v1",
    docs_url: "https://platform.openai.com/docs/models",
    models: [
      { id: "gpt-4.1", capabilities: chatToolsVision, context_window: 1_047_576 },
      { id: "gpt-4.1-mini", capabilities: chatToolsVision, context_window: 1_047_576 },
      { id: "gpt-4o", capabilities: chatToolsVision, context_window: 128_000 },
      { id: "gpt-4o-mini", capabilities: chatToolsVision, context_window: 128_000 },
      { id: "o4-mini", capabilities: chatToolsVision, context_window: 200_000 },
      { id: "text-embedding-3-small", capabilities: ["embeddings"] },
      { id: "text-embedding-3-large", capabilities: ["embeddings"] },
    ],
  },
  {
    id: "anthropic",
    name: "Anthropic",
    env_key: "ANTHROPIC_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.anthropic.com/v1",
    docs_url: "https://docs.anthropic.com/en/docs/about-claude/models",
    models: [
      { id: "claude-sonnet-4-5", capabilities: chatToolsVision, context_window: 200_000 },
      { id: "claude-opus-4-1", capabilities: chatToolsVision, context_window: 200_000 },
      { id: "claude-3-5-haiku-latest", capabilities: chatTools, context_window: 200_000 },
    ],
  },
  {
    id: "google",
    name: "Google Gemini",
    env_key: "GOOGLE_GENERATIVE_AI_API_KEY",
    requires_base_url: false,
    default_base_url: "https://generativelanguage.googleapis.com/v1beta",
    docs_url: "https://ai.google.dev/gemini-api/docs/models",
    models: [
      { id: "gemini-2.5-pro", capabilities: chatToolsVision, context_window: 1_048_576 },
      { id: "gemini-2.5-flash", capabilities: chatToolsVision, context_window: 1_048_576 },
      { id: "text-embedding-004", capabilities: ["embeddings"] },
    ],
  },
  {
    id: "mistral",
    name: "Mistral",
    env_key: "MISTRAL_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.mistral.ai/v1",
    docs_url: "https://docs.mistral.ai/getting-started/models/",
    models: [
      { id: "mistral-large-latest", capabilities: chatTools, context_window: 128_000 },
      { id: "mistral-small-latest", capabilities: chatToolsVision, context_window: 128_000 },
      { id: "mistral-embed", capabilities: ["embeddings"] },
    ],
  },
  {
    id: "groq",
    name: "Groq",
    env_key: "GROQ_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.groq.com/openai/v1",
    docs_url: "https://console.groq.com/docs/models",
    models: [
      { id: "llama-3.3-70b-versatile", capabilities: chatTools, context_window: 131_072 },
      { id: "llama-3.1-8b-instant", capabilities: chatTools, context_window: 131_072 },
    ],
  },
  {
    id: "cohere",
    name: "Cohere",
    env_key: "COHERE_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.cohere.com/v2",
    docs_url: "https://docs.cohere.com/docs/models",
    models: [
      { id: "command-a-03-2025", capabilities: chatTools, context_window: 256_000 },
      { id: "command-r-plus", capabilities: chatTools, context_window: 128_000 },
      { id: "embed-v4.0", capabilities: ["embeddings"] },
    ],
  },
  {
    id: "deepseek",
    name: "DeepSeek",
    env_key: "DEEPSEEK_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.deepseek.com",
    docs_url: "https://api-docs.deepseek.com/quick_start/pricing",
    models: [
      { id: "deepseek-chat", capabilities: chatTools, context_window: 128_000 },
      { id: "deepseek-reasoner", capabilities: ["chat", "json"], context_window: 128_000 },
    ],
  },
  {
    id: "xai",
    name: "xAI",
    env_key: "XAI_API_KEY",
    requires_base_url: false,
    default_base_url: "https://api.x.ai/v1",
    docs_url: "https://docs.x.ai/docs/models",
    models: [
      { id: "grok-4", capabilities: chatToolsVision, context_window: 256_000 },
      { id: "grok-3-mini", capabilities: chatTools, context_window: 131_072 },
    ],
  },
  {
    id: "openai-compatible",
    name: "OpenAI-compatible (Ollama, vLLM, LM Studio, OpenRouter)",
    env_key: null,
    requires_base_url: true,
    default_base_url: null,
    docs_url: "https://github.com/ollama/ollama/blob/main/docs/openai.md",
    models: [
      { id: "llama3.2", capabilities: chatTools },
      { id: "qwen2.5", capabilities: chatTools },
      { id: "nomic-embed-text", capabilities: ["embeddings"] },
    ],
  },
];

export const PROVIDER_IDS = PROVIDERS.map((provider) => provider.id);

/**
 * The model a new agent or LLM node of a provider gets when none is named: its first chat model in
 * the catalogue; null for a provider that lists none (openai-compatible serves whatever it hosts).
 *
 * @example defaultChatModel("anthropic") // "claude-sonnet-4-5"
 */
export function defaultChatModel(providerId: string): string | null {
  return findProvider(providerId)?.models.find((model) => model.capabilities.includes("chat"))?.id ?? null;
}

export function findProvider(id: string): ProviderInfo | undefined {
  return PROVIDERS.find((provider) => provider.id === id);
}
