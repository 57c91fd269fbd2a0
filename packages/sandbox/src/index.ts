export { LanguageUnavailableError, SandboxUnavailableError } from "./errors.ts";
export { SandboxBusyError, SandboxClosedError } from "./limiter.ts";
export { LANGUAGES, type Language, OUTPUT_LIMIT_BYTES, RUN_LIMIT_BOUNDS } from "./limits.ts";
export { RUN_ERROR_KINDS, type RunError, type RunErrorKind, type RunResult } from "./result.ts";
export type { RunRequest } from "./run-request.ts";
export { createSandbox, Sandbox } from "./sandbox.ts";
export type {
  LanguageRuntime,
  RuntimesReport,
  SandboxOptions,
  SandboxSession,
  SandboxStats,
} from "./types.ts";
