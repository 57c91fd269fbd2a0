import { ApiError, createRouter, errorResponses } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import { consumeRateLimit } from "../auth/rate-limit.ts";
import { requireCredits } from "../billing/meter.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { checkRunnable } from "./check-runnable.ts";
import { hookTokenParam, runSchema, runStartedSchema } from "./contract.ts";
import { HookErrors } from "./errors.ts";
import { findWorkflowForTrigger } from "./find-workflow-for-trigger.ts";
import { finishedRunJson } from "./runs/run-json.ts";
import type { WorkflowRunner } from "./runs/workflow-runner.ts";
import { isTriggerTokenValid, workflowIdOfToken } from "./trigger-token.ts";
import { workflowToRun } from "./workflow-versions.ts";

/** Triggers per workflow per minute: enough for event-driven use, a brake on floods. */
const TRIGGERS_PER_MINUTE = 120;
/** The trigger's body becomes run inputs and is stored with the run. */
export const HOOK_BODY_LIMIT_BYTES = 256 * 1024;

const triggerRoute = createRoute({
  method: "post",
  path: "/{token}",
  tags: ["workflows"],
  summary: "Start a workflow run from a POSTed JSON body (the workflow's trigger_url)",
  description:
    "No other authentication: the URL is the secret. Answers 202 with the run id, or with `?wait=true` the finished run.",
  security: [],
  request: {
    params: hookTokenParam,
    query: z.object({ wait: z.enum(["true", "false"]).optional() }),
    body: { required: false, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: {
    200: {
      description: "The finished run (with ?wait=true)",
      content: { "application/json": { schema: runSchema } },
    },
    202: {
      description: "The run started",
      content: {
        "application/json": { schema: runStartedSchema },
      },
    },
    // 402: the workflow's workspace is out of credits (with BILLING_ENFORCE=1).
    ...errorResponses(400, 402, 404, 413, 422, 429),
  },
});

/** The public inbound trigger, mounted at /api/hooks. */
export function hookRoutes(deps: Deps, runner: WorkflowRunner) {
  const router = createRouter<AppEnv>();
  router.openapi(triggerRoute, async (c) => {
    const { token } = c.req.valid("param");
    const workflowId = workflowIdOfToken(token);
    const draft = workflowId ? await findWorkflowForTrigger(deps.db, workflowId) : undefined;
    if (!draft || !isTriggerTokenValid(deps.config.secretKey, token, draft.id, draft.triggerVersion)) {
      throw HookErrors.HOOK_NOT_FOUND();
    }
    // The trigger URL runs the newest published version, or the draft of a workflow never published.
    const chosen = await workflowToRun(deps.db, draft, "published");
    if (chosen === "version_not_found") throw HookErrors.HOOK_NOT_FOUND();
    const { workflow, version } = chosen;
    const limit = await consumeRateLimit(
      deps.db,
      `hook:${workflow.id}`,
      { max: TRIGGERS_PER_MINUTE, windowMs: 60_000 },
      deps.clock.now(),
    );
    if (!limit.isAllowed) {
      throw new ApiError(
        429,
        "too_many_triggers",
        `This trigger accepts ${TRIGGERS_PER_MINUTE} requests a minute.`,
        {
          headers: { "Retry-After": String(limit.retryAfterSeconds) },
        },
      );
    }
    const inputs = (c.req.valid("json") as Record<string, unknown> | undefined) ?? {};
    checkRunnable(runner, workflow, inputs, version);
    await requireCredits(deps, workflow.workspaceId, { work: "This workflow run" });
    const request = {
      workspaceId: workflow.workspaceId,
      workflow,
      inputs,
      trigger: "hook" as const,
      version,
    };
    if (c.req.valid("query").wait === "true") {
      const result = await runner.run(request);
      return c.json(
        finishedRunJson(result, { workflowId: workflow.id, trigger: "hook", inputs, version }),
        200,
      );
    }
    const runId = await new Promise<string>((resolve, reject) => {
      runner.run({ ...request, persistAtStart: true, onRunCreated: resolve }).catch((error: unknown) => {
        deps.logger.error({ err: error, workflow_id: workflow.id }, "triggered run failed to record");
        reject(error);
      });
    });
    return c.json({ run_id: runId, status: "running" as const }, 202);
  });
  return router;
}
