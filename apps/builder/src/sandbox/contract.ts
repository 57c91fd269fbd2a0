import { LANGUAGES, RUN_ERROR_KINDS, RUN_LIMIT_BOUNDS } from "@app/sandbox";
import { CODE_ENTRY_POINTS } from "@app/workflow";
import { z } from "@hono/zod-openapi";

const { timeoutMs, memoryMb } = RUN_LIMIT_BOUNDS;

export const runSandboxBody = z
  .object({
    language: z.enum(LANGUAGES),
    code: z.string().min(1).max(100_000).openapi({ description: CODE_ENTRY_POINTS }),
    input: z.record(z.string(), z.unknown()).openapi({ example: { name: "Ada" } }),
    timeout_ms: z
      .number()
      .int()
      .min(timeoutMs.min)
      .max(timeoutMs.max)
      .optional()
      .openapi({
        description: `Wall-clock limit; default ${timeoutMs.default}`,
      }),
    memory_mb: z
      .number()
      .int()
      .min(memoryMb.min)
      .max(memoryMb.max)
      .optional()
      .openapi({
        description: `Memory limit; default ${memoryMb.default}`,
      }),
  })
  .strict()
  .openapi("SandboxRunRequest");

export const runResultSchema = z
  .object({
    output: z.record(z.string(), z.unknown()).nullable().openapi({ description: "What main returned" }),
    stdout: z.string(),
    stderr: z.string(),
    exit_code: z.number().int().nullable(),
    duration_ms: z.number(),
    timed_out: z.boolean(),
    truncated: z.boolean().openapi({ description: "stdout+stderr were cut at the output limit" }),
    error: z
      .object({
        kind: z.enum(RUN_ERROR_KINDS),
        message: z.string(),
        type: z.string().optional(),
        line: z.number().int().optional().openapi({ description: "Line in the submitted code" }),
      })
      .nullable(),
  })
  .openapi("SandboxRunResult");

export const runtimesSchema = z
  .object({
    available: z.boolean(),
    reason: z.string().nullable(),
    isolation: z.object({
      bubblewrap: z.string().nullable(),
      seccomp: z.boolean(),
      uids: z.enum(["per_run", "service"]),
    }),
    limits: z.object({
      mechanism: z.enum(["cgroup_v2", "rlimit"]),
      detail: z.string(),
      default_timeout_ms: z.number().int(),
      default_memory_mb: z.number().int(),
      output_limit_bytes: z.number().int(),
    }),
    concurrency: z.number().int().openapi({ description: "Runs at once across all workspaces" }),
    workspace_concurrency: z
      .number()
      .int()
      .openapi({ description: "Runs at once of one workspace while other workspaces want the sandbox" }),
    contention_window_ms: z.number().int().openapi({
      description:
        "A workspace alone for this long runs on the whole pool, beyond workspace_concurrency (another workspace then starts within its share at once, beside the borrowed runs); 0: never",
    }),
    queue_timeout_ms: z.number().int(),
    languages: z.array(
      z.object({
        language: z.enum(LANGUAGES),
        kind: z.enum(["interpreted", "compiled"]),
        available: z.boolean(),
        version: z.string().nullable(),
        reason: z.string().nullable(),
      }),
    ),
  })
  .openapi("SandboxRuntimes");
