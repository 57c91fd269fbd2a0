import { createRouter, errorResponses, jsonContent } from "@app/http";
import {
  LANGUAGES,
  LanguageUnavailableError,
  RUN_LIMIT_BOUNDS,
  type RunResult,
  type RuntimesReport,
  type Sandbox,
  SandboxBusyError,
  SandboxClosedError,
  SandboxUnavailableError,
} from "@app/sandbox";
import { createRoute } from "@hono/zod-openapi";
import { chargeSandboxRun, requireCredits } from "../billing/meter.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { runResultSchema, runSandboxBody, runtimesSchema } from "./contract.ts";
import { SandboxErrors } from "./errors.ts";

const { timeoutMs, memoryMb } = RUN_LIMIT_BOUNDS;

const runRoute = createRoute({
  method: "post",
  path: "/run",
  tags: ["sandbox"],
  summary: "Run a program's entry point (main, Main or main_fn) in the sandbox with `input`",
  description:
    "Errors in the code (compile, runtime, timeout, memory, output) are a 200 with `error` set; only host problems are 503.",
  request: { body: { required: true, content: jsonContent(runSandboxBody) } },
  responses: {
    200: { description: "The run's result", content: jsonContent(runResultSchema) },
    // 402: out of credits (with BILLING_ENFORCE=1); the run's time is billed either way.
    // 429: this workspace's runs waited past the queue timeout (or too many are waiting), with Retry-After.
    ...errorResponses(400, 401, 402, 413, 422, 429, 503),
  },
});

const runtimesRoute = createRoute({
  method: "get",
  path: "/runtimes",
  tags: ["sandbox"],
  summary: "Languages available on this host, their versions and the limit mechanism in force",
  responses: {
    200: { description: "The sandbox's runtimes", content: jsonContent(runtimesSchema) },
    ...errorResponses(401),
  },
});

function toResultJson(result: RunResult) {
  return {
    output: result.output,
    stdout: result.stdout,
    stderr: result.stderr,
    exit_code: result.exitCode,
    duration_ms: result.durationMs,
    timed_out: result.timedOut,
    truncated: result.truncated,
    error: result.error,
  };
}

function toRuntimesJson(report: RuntimesReport) {
  return {
    available: report.isAvailable,
    reason: report.reason,
    isolation: report.isolation,
    limits: {
      mechanism: report.limits.mechanism,
      detail: report.limits.detail,
      default_timeout_ms: report.limits.defaultTimeoutMs,
      default_memory_mb: report.limits.defaultMemoryMb,
      output_limit_bytes: report.limits.outputBytes,
    },
    concurrency: report.concurrency,
    workspace_concurrency: report.perWorkspaceConcurrency,
    contention_window_ms: report.contentionWindowMs,
    queue_timeout_ms: report.queueTimeoutMs,
    languages: report.languages.map((entry) => ({
      language: entry.language,
      kind: entry.kind,
      available: entry.isAvailable,
      version: entry.version,
      reason: entry.reason,
    })),
  };
}

/** A host without a sandbox (not constructed, or bwrap missing) still answers the runtimes route. */
const NOT_CONFIGURED = {
  available: false,
  reason: "the sandbox is not configured on this server",
  isolation: { bubblewrap: null, seccomp: false, uids: "service" as const },
  limits: {
    mechanism: "rlimit" as const,
    detail: "no sandbox",
    default_timeout_ms: timeoutMs.default,
    default_memory_mb: memoryMb.default,
    output_limit_bytes: 0,
  },
  concurrency: 0,
  workspace_concurrency: 0,
  contention_window_ms: 0,
  queue_timeout_ms: 0,
  languages: LANGUAGES.map((language) => ({
    language,
    kind: language === "go" || language === "rust" ? ("compiled" as const) : ("interpreted" as const),
    available: false,
    version: null,
    reason: "the sandbox is not configured on this server",
  })),
};

/**
 * A full queue is a 429 for the workspace that filled it; host problems are 503s; anything the code
 * did wrong is already in the result.
 */
function toApiError(error: unknown, deps: Pick<Deps, "logger">, workspaceId: string): unknown {
  if (error instanceof SandboxBusyError) {
    // Expected under load, so not an "unhandled error"; frequent ones mean the pool is too small.
    deps.logger.warn(
      { workspace_id: workspaceId, waited_ms: error.waitedMs, retry_after_s: error.retryAfterSeconds },
      "sandbox capacity refusal",
    );
    return SandboxErrors.SANDBOX_BUSY({
      message: error.message,
      headers: { "Retry-After": String(error.retryAfterSeconds) },
    });
  }
  if (error instanceof LanguageUnavailableError)
    return SandboxErrors.LANGUAGE_UNAVAILABLE({ message: error.message });
  if (error instanceof SandboxUnavailableError || error instanceof SandboxClosedError) {
    return SandboxErrors.SANDBOX_UNAVAILABLE({ message: error.message });
  }
  return error;
}

/**
 * `POST /run` and `GET /runtimes`, on the one sandbox that code nodes and code tools share. Runs are
 * metered by their duration.
 *
 * @example app.route("/api/sandbox", sandboxRoutes(deps, deps.sandbox));
 */
export function sandboxRoutes(
  deps: Pick<Deps, "logger" | "db" | "clock" | "config">,
  sandbox: Sandbox | undefined,
) {
  const router = createRouter<AppEnv>();
  router.openapi(runRoute, async (c) => {
    if (!sandbox) throw SandboxErrors.SANDBOX_UNAVAILABLE();
    const body = c.req.valid("json");
    const workspaceId = c.get("principal").workspaceId;
    await requireCredits(deps, workspaceId, { work: "This sandbox run" });
    let result: RunResult;
    try {
      result = await sandbox.run({
        workspaceId,
        language: body.language,
        code: body.code,
        input: body.input,
        ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
        ...(body.memory_mb === undefined ? {} : { memoryMb: body.memory_mb }),
      });
    } catch (error) {
      throw toApiError(error, deps, workspaceId);
    }
    await chargeSandboxRun(deps, {
      workspaceId,
      durationMs: result.durationMs,
      language: body.language,
      source: "sandbox_run",
    });
    return c.json(toResultJson(result), 200);
  });
  router.openapi(runtimesRoute, (c) =>
    c.json(sandbox ? toRuntimesJson(sandbox.runtimes()) : NOT_CONFIGURED, 200),
  );
  return router;
}
