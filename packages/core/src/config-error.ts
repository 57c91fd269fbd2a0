/** Raised when an environment variable is invalid; the message names it. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Turns failed environment checks into one ConfigError naming every bad variable.
 *
 * @example throw configError(parsed.error.issues);
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

/**
 * A `superRefine` check shared by the services: serving from more than one process needs a
 * database server, because the embedded database lives inside a single process.
 *
 * @example envSchema.superRefine(severalProcessesNeedServer("WEB_CONCURRENCY", "DATABASE_URL"));
 */
export function severalProcessesNeedServer<Processes extends string, Url extends string>(
  processes: Processes,
  databaseUrl: Url,
) {
  return (
    env: Record<Processes, number> & Partial<Record<Url, string>>,
    ctx: { addIssue(issue: { code: "custom"; path: string[]; message: string }): void },
  ): void => {
    if (env[processes] > 1 && !env[databaseUrl])
      ctx.addIssue({
        code: "custom",
        path: [processes],
        message: `above 1 needs ${databaseUrl}: the embedded database lives in one process`,
      });
  };
}
