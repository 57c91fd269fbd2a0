/** Raised when an environment variable is invalid; the message names it. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Turns failed environment checks into one ConfigError naming every bad variable.
 *
 * @example throw configError("builder", parsed.error.issues);
 */
export function configError(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): ConfigError {
  const lines = issues.map((issue) => `  ${String(issue.path[0])}: ${issue.message}`);
  return new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
}

/** The environment without empty values, so `FOO=` counts as unset. */
export function presentVariables(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== "") out[key] = value;
  return out;
}
