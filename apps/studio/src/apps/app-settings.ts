import type { App, UpdateAppRequest } from "../api/schema.gen.ts";
import {
  MAX_ORIGINS,
  MAX_STARTER_PROMPTS,
  normalizeOrigin,
  originProblem,
  starterPromptProblem,
} from "./app-rules.ts";
import { listProblem } from "./ListEditor.tsx";

/** Requests per window a new rate limit starts at (the API's default for a new app). */
export const DEFAULT_RATE_LIMIT = { requests: 60, window_seconds: 60 };

/** The settings form's state: numbers as typed, lists with the entry being typed. */
export interface SettingsDraft {
  title: string;
  description: string;
  slug: string;
  color: string;
  isDark: boolean;
  starterPrompts: string[];
  promptDraft: string;
  origins: string[];
  originDraft: string;
  isRateLimited: boolean;
  requests: string;
  windowSeconds: string;
  creditLimit: string;
}

/**
 * The form's state for an app as saved.
 *
 * @example const [draft, setDraft] = useState(() => toSettingsDraft(app));
 */
export function toSettingsDraft(app: App): SettingsDraft {
  const limit = app.rate_limit ?? DEFAULT_RATE_LIMIT;
  return {
    title: app.title,
    description: app.description,
    slug: app.slug,
    color: app.theme.color,
    isDark: app.theme.dark,
    starterPrompts: app.starter_prompts,
    promptDraft: "",
    origins: app.allowed_origins,
    originDraft: "",
    isRateLimited: app.rate_limit !== null,
    requests: String(limit.requests),
    windowSeconds: String(limit.window_seconds),
    creditLimit: app.end_user_credit_limit === null ? "" : String(app.end_user_credit_limit),
  };
}

/**
 * The PATCH body for the form's state, or why it cannot be sent yet: a typed but unadded list entry
 * joins its list when it is valid (saving must not drop it) and stops the save when not.
 *
 * @example const result = toUpdateBody(draft, "agent"); if ("body" in result) save.mutate(result.body);
 */
export function toUpdateBody(
  draft: SettingsDraft,
  kind: App["kind"],
): { body: UpdateAppRequest } | { problem: string } {
  const origins = [...draft.origins];
  const origin = normalizeOrigin(draft.originDraft);
  if (origin) {
    const problem = listProblem(origin, origins, MAX_ORIGINS, originProblem);
    if (problem) return { problem: `Allowed origin ${origin}: ${problem}` };
    origins.push(origin);
  }
  const prompts = [...draft.starterPrompts];
  const prompt = draft.promptDraft.trim();
  if (kind === "agent" && prompt) {
    const problem = listProblem(prompt, prompts, MAX_STARTER_PROMPTS, starterPromptProblem);
    if (problem) return { problem: `Starter prompt: ${problem}` };
    prompts.push(prompt);
  }
  return {
    body: {
      title: draft.title,
      description: draft.description,
      slug: draft.slug,
      theme: { color: draft.color, dark: draft.isDark },
      ...(kind === "agent" ? { starter_prompts: prompts } : {}),
      allowed_origins: origins,
      rate_limit: draft.isRateLimited
        ? { requests: Number(draft.requests), window_seconds: Number(draft.windowSeconds) }
        : null,
      end_user_credit_limit: draft.creditLimit.trim() === "" ? null : Number(draft.creditLimit),
    },
  };
}
