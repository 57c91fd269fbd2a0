import { LANGUAGES, type Language, RUN_LIMIT_BOUNDS } from "./limits.ts";
import type { RunResult } from "./result.ts";

export interface RunRequest {
  /** Whose run this is: the pool is shared fairly between workspaces (quota, round robin). Runs without one share one queue. */
  workspaceId?: string | undefined;
  language: Language;
  code: string;
  /** The object handed to main; must be a JSON object. */
  input: unknown;
  timeoutMs?: number;
  memoryMb?: number;
  /** Aborting withdraws a queued run or stops a running one; `run` then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** The limits a run was given, after the checks. */
export interface ChosenLimits {
  timeoutMs: number;
  memoryMb: number;
  signal: AbortSignal | undefined;
}

const MAX_CODE_BYTES = 512 * 1024;
const MAX_INPUT_BYTES = 1024 * 1024;

/**
 * A request refused before it reaches a sandbox, in the same shape as any run's result, so callers
 * handle bad input like any other failed run.
 *
 * @example invalidInput("code must be a non-empty string").error // { kind: "invalid_input", message: "code must be a non-empty string" }
 */
export function invalidInput(message: string): RunResult {
  return {
    output: null,
    stdout: "",
    stderr: "",
    exitCode: null,
    durationMs: 0,
    timedOut: false,
    truncated: false,
    error: { kind: "invalid_input", message },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The caller's limit, or the default, if it is an integer within the bounds.
 *
 * @example checkLimit("timeout_ms", 50, RUN_LIMIT_BOUNDS.timeoutMs) // { error: "timeout_ms must be an integer from 100 to 60000" }
 */
export function checkLimit(
  name: string,
  value: number | undefined,
  bounds: { min: number; max: number; default: number },
) {
  const chosen = value ?? bounds.default;
  if (!Number.isInteger(chosen) || chosen < bounds.min || chosen > bounds.max) {
    return { error: `${name} must be an integer from ${bounds.min} to ${bounds.max}` };
  }
  return { value: chosen };
}

/**
 * Checks a request before it waits for a slot: either the refusal to answer with, or the input as
 * JSON and the limits it runs under.
 *
 * @example const checked = checkRequest({ language: "python", code, input: {} }); if ("refusal" in checked) return checked.refusal;
 */
export function checkRequest(
  request: RunRequest,
): { refusal: RunResult } | { inputJson: string; chosen: ChosenLimits } {
  const { language, code, input } = request;
  const refuse = (message: string) => ({ refusal: invalidInput(message) });
  if (!LANGUAGES.includes(language)) return refuse(`language must be one of ${LANGUAGES.join(", ")}`);
  if (typeof code !== "string" || code.trim() === "") return refuse("code must be a non-empty string");
  if (Buffer.byteLength(code) > MAX_CODE_BYTES) return refuse(`code is larger than ${MAX_CODE_BYTES} bytes`);
  if (!isPlainObject(input)) return refuse("input must be a JSON object");
  let inputJson: string;
  try {
    inputJson = JSON.stringify(input);
  } catch (error) {
    return refuse(`input is not JSON: ${(error as Error).message}`);
  }
  if (Buffer.byteLength(inputJson) > MAX_INPUT_BYTES) return refuse("input is larger than 1 MiB");
  const timeout = checkLimit("timeout_ms", request.timeoutMs, RUN_LIMIT_BOUNDS.timeoutMs);
  if (timeout.error !== undefined) return refuse(timeout.error);
  const memory = checkLimit("memory_mb", request.memoryMb, RUN_LIMIT_BOUNDS.memoryMb);
  if (memory.error !== undefined) return refuse(memory.error);
  return { inputJson, chosen: { timeoutMs: timeout.value, memoryMb: memory.value, signal: request.signal } };
}

/**
 * Warm runners were started with the default limits: they fit any run that asks for no more.
 *
 * @example fitsWarmLimits({ timeoutMs: 5_000, memoryMb: 256, signal: undefined }) // true
 */
export function fitsWarmLimits(chosen: ChosenLimits): boolean {
  return (
    chosen.memoryMb === RUN_LIMIT_BOUNDS.memoryMb.default &&
    chosen.timeoutMs <= RUN_LIMIT_BOUNDS.timeoutMs.default
  );
}
