export { SandboxBusyError, SandboxClosedError } from "./limiter.ts";
export { LANGUAGES, type Language, OUTPUT_LIMIT_BYTES, RUN_LIMIT_BOUNDS } from "./limits.ts";
export { RUN_ERROR_KINDS, type RunError, type RunErrorKind, type RunResult } from "./result.ts";
export {
  createSandbox,
  type LanguageRuntime,
  LanguageUnavailableError,
  type RunRequest,
  type RuntimesReport,
  Sandbox,
  type SandboxOptions,
  type SandboxSession,
  type SandboxStats,
  SandboxUnavailableError,
} from "./sandbox.ts";
