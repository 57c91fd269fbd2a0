// The checks the API applies to an app's settings (apps/builder/src/apps/contract.ts), repeated here
// so a mistake shows beside its field as it is typed. The API stays the judge: its 422 is shown too.

/** Same pattern as the API's: `https://host[:port]`, or `http://` for loopback hosts only. */
const ORIGIN_PATTERN =
  /^(https:\/\/[a-z0-9.-]+(:[0-9]{1,5})?|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?)$/;
const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

export const MAX_ORIGINS = 50;
export const MAX_STARTER_PROMPTS = 8;
export const MAX_STARTER_PROMPT_LENGTH = 300;

/**
 * An origin as typed, lower-cased and trimmed the way a browser sends it (`HTTPS://Shop.Example.com`
 * → `https://shop.example.com`).
 *
 * @example normalizeOrigin(" HTTPS://Shop.Example.com ") // "https://shop.example.com"
 */
export function normalizeOrigin(typed: string): string {
  return typed.trim().toLowerCase();
}

/**
 * Why an origin would be refused by the API, in words, or null when it is accepted.
 *
 * @example originProblem("https://shop.example.com/") // "Leave out the path: only https://host[:port]."
 */
export function originProblem(origin: string): string | null {
  if (ORIGIN_PATTERN.test(origin) && origin.length <= 300) return null;
  if (!origin) return "Enter an origin such as https://shop.example.com.";
  if (origin.length > 300) return "An origin has at most 300 characters.";
  const scheme = /^([a-z]+):\/\//.exec(origin)?.[1];
  if (!scheme) return "Start with https:// (for example https://shop.example.com).";
  if (scheme === "http") return "Use https://; plain http:// is accepted only for localhost and 127.0.0.1.";
  if (scheme !== "https") return "Use an https:// origin.";
  const rest = origin.slice("https://".length);
  if (/[/?#]/.test(rest)) return "Leave out the path: only https://host[:port].";
  return "Not an origin: use https://host or https://host:port with letters, digits, dots and hyphens.";
}

/**
 * Why a slug would be refused, or null.
 *
 * @example slugProblem("Support Bot") // "3–63 lower-case letters, digits and inner hyphens."
 */
export function slugProblem(slug: string): string | null {
  return SLUG_PATTERN.test(slug) ? null : "3–63 lower-case letters, digits and inner hyphens.";
}

/**
 * Whether a theme colour is one the API accepts (`#RRGGBB`).
 *
 * @example isThemeColor("#2563eb") // true
 */
export function isThemeColor(color: string): boolean {
  return COLOR_PATTERN.test(color);
}

/**
 * Why a starter prompt would be refused, or null.
 *
 * @example starterPromptProblem("  ") // "Write the prompt first."
 */
export function starterPromptProblem(prompt: string): string | null {
  if (!prompt.trim()) return "Write the prompt first.";
  if (prompt.trim().length > MAX_STARTER_PROMPT_LENGTH)
    return `A starter prompt has at most ${MAX_STARTER_PROMPT_LENGTH} characters.`;
  return null;
}
