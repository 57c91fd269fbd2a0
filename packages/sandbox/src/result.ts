import type { ProcessOutcome } from "./sandboxed-process.ts";

export const RUN_ERROR_KINDS = [
  "compile",
  "runtime",
  "timeout",
  "memory",
  "output_limit",
  "invalid_input",
  "invalid_output",
] as const;
export type RunErrorKind = (typeof RUN_ERROR_KINDS)[number];

/** Why a run produced no output, in the user's terms (line numbers are the user's own). */
export interface RunError {
  kind: RunErrorKind;
  message: string;
  /** The exception or panic class where the language has one (ZeroDivisionError, TypeError, panic). */
  type?: string;
  line?: number;
}

/** The one shape of every run, successful or not. */
export interface RunResult {
  /** What main returned: always a JSON object, or null when the run failed. */
  output: Record<string, unknown> | null;
  stdout: string;
  stderr: string;
  /** null when the sandbox stopped the program (timeout, output limit) or it never started. */
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  /** stdout+stderr were cut at the output limit. */
  truncated: boolean;
  error: RunError | null;
}

type WrapperResult = { ok: true; output: Record<string, unknown> } | { ok: false; error: RunError };

const SIGNAL_BASE = 128;
const SIGXCPU = 24;
const SIGXFSZ = 25;

/** Messages runtimes print when an allocation fails under RLIMIT_DATA/RLIMIT_AS. */
const MEMORY_PATTERNS = [
  /MemoryError/,
  /JavaScript heap out of memory/,
  /Array buffer allocation failed/,
  /runtime: out of memory/,
  /fatal error: out of memory/,
  /memory allocation of \d+ bytes failed/,
  /Cannot allocate memory/,
  /std::bad_alloc/,
];

/** Where each language's stack traces name the user's file. */
const PYTHON_FRAME = /File "main\.py", line (\d+)/g;
const OTHER_FRAME = /main\.(?:js|go|rs):(\d+)/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The wrapper's fd-3 message, checked: anything else on fd 3 is treated as no result at all.
 *
 * @example parseWrapperResult(Buffer.from('{"ok":true,"output":{"n":1}}')) // { ok: true, output: { n: 1 } }
 */
export function parseWrapperResult(bytes: Buffer | null): WrapperResult | undefined {
  if (!bytes) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  if (parsed.ok === true) {
    if (!isPlainObject(parsed.output)) {
      return { ok: false, error: { kind: "invalid_output", message: "main must return a JSON object" } };
    }
    return { ok: true, output: parsed.output };
  }
  const error = parsed.error;
  if (parsed.ok !== false || !isPlainObject(error)) return undefined;
  const kind = RUN_ERROR_KINDS.find((candidate) => candidate === error.kind) ?? "runtime";
  return {
    ok: false,
    error: {
      kind,
      message: typeof error.message === "string" ? error.message : "error",
      ...(typeof error.type === "string" && error.type !== "" ? { type: error.type } : {}),
      ...(typeof error.line === "number" && error.line > 0 ? { line: error.line } : {}),
    },
  };
}

/**
 * The line of the user's file a stack trace points at (innermost frame for Python, first for the rest).
 *
 * @example lineFromTrace("goroutine 1 [running]:\nmain.Main(...)\n\t/tmp/src/main.go:7 +0x1d") // 7
 */
export function lineFromTrace(stderr: string): number | undefined {
  const python = [...stderr.matchAll(PYTHON_FRAME)].at(-1);
  if (python?.[1]) return Number(python[1]);
  const other = OTHER_FRAME.exec(stderr);
  return other?.[1] ? Number(other[1]) : undefined;
}

/** A program that ended without a result: why, from its exit status and what it printed. */
function crashError(outcome: ProcessOutcome): RunError {
  if (outcome.isOomKilled || MEMORY_PATTERNS.some((pattern) => pattern.test(outcome.stderr))) {
    return { kind: "memory", message: "The program ran out of memory (memory limit reached)." };
  }
  const line = lineFromTrace(outcome.stderr);
  const where = line === undefined ? {} : { line };
  if (outcome.exitCode === SIGNAL_BASE + SIGXCPU) {
    return { kind: "timeout", message: "The program used up its CPU time limit." };
  }
  if (outcome.exitCode === SIGNAL_BASE + SIGXFSZ) {
    return {
      kind: "runtime",
      message: "The program wrote a file larger than the file size limit.",
      ...where,
    };
  }
  if (outcome.exitCode !== null && outcome.exitCode > SIGNAL_BASE) {
    return {
      kind: "runtime",
      message: `The program was killed by signal ${outcome.exitCode - SIGNAL_BASE} before returning a result.`,
      ...where,
    };
  }
  return {
    kind: "runtime",
    message: `The program exited with code ${outcome.exitCode} before returning a result.`,
    ...where,
  };
}

/**
 * Turns what the sandbox saw into the run's result. Limits the host enforced come first: a run that
 * was stopped never reports a result it may have half-written.
 *
 * @example const result = toRunResult(outcome, { timeoutMs: 10_000, durationMs: 12.5 });
 */
export function toRunResult(
  outcome: ProcessOutcome,
  context: { timeoutMs: number; durationMs: number },
): RunResult {
  const base = {
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    exitCode: outcome.exitCode,
    durationMs: context.durationMs,
    timedOut: outcome.isTimedOut,
    truncated: outcome.isOutputTruncated,
  };
  const fail = (error: RunError): RunResult => ({ ...base, output: null, error });
  if (outcome.isTimedOut) {
    return fail({
      kind: "timeout",
      message: `The run took longer than ${context.timeoutMs} ms and was stopped.`,
    });
  }
  if (outcome.isOutputTruncated) {
    return fail({
      kind: "output_limit",
      message: "stdout and stderr passed the output limit; the run was stopped and its output cut.",
    });
  }
  if (outcome.isResultTooLarge) {
    return fail({ kind: "invalid_output", message: "The returned object is larger than the result limit." });
  }
  const parsed = parseWrapperResult(outcome.result);
  if (parsed?.ok) return { ...base, output: parsed.output, error: null };
  if (parsed) {
    if (parsed.error.kind === "runtime" && outcome.isOomKilled) {
      return fail({ ...parsed.error, kind: "memory" });
    }
    return fail(parsed.error);
  }
  return fail(crashError(outcome));
}
