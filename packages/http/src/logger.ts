import pino, { type Logger } from "pino";

export type { Logger };

/**
 * The service's JSON logger. Secrets are redacted by key wherever they appear.
 *
 * @example const logger = createLogger({ service: "builder", level: process.env.LOG_LEVEL });
 */
export function createLogger(options: { service: string; level?: string | undefined }): Logger {
  return pino({
    name: options.service,
    level: options.level ?? (process.env.NODE_ENV === "test" || process.env.VITEST ? "silent" : "info"),
    redact: {
      paths: ["*.password", "*.api_key", "*.apiKey", "*.secret", "*.token", "*.authorization", "*.cookie"],
      censor: "[redacted]",
    },
  });
}
