/** Limits of calls to AI providers; tests shorten them, production uses `defaultAiSettings`. */
export interface AiSettings {
  /** The longest an agent turn (model calls and tools) or a credential check may take; then 504. */
  timeoutMs: number;
  /** Model calls per agent turn: a model that keeps calling tools is stopped here. */
  maxSteps: number;
}

export const defaultAiSettings: AiSettings = { timeoutMs: 120_000, maxSteps: 10 };
