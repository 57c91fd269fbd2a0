import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * The service's JSON logger, to stdout unless a `destination` is given (tests read what was logged).
 * Secrets are redacted by key wherever they appear.
 *
 * @example const logger = createLogger({ service: "builder", level: process.env.LOG_LEVEL });
 */
export function createLogger(options: {
  service: string;
  level?: string | undefined;
  destination?: DestinationStream | undefined;
}): Logger {
  const settings = {
    name: options.service,
    level: options.level ?? (process.env.NODE_ENV === "test" || process.env.VITEST ? "silent" : "info"),
    redact: {
      paths: ["*.password", "*.api_key", "*.apiKey", "*.secret", "*.token", "*.authorization", "*.cookie"],
      censor: "[redacted]",
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
