import { eventStream } from "@app/http";
import type { RunResult } from "@app/workflow";
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { RunRequest, RunStreamEvent, WorkflowRunner } from "./runs/workflow-runner.ts";

/**
 * Runs a workflow and answers it: with `Accept: text/event-stream` its events as they happen (the
 * run is a record of its own, so a client that goes away does not cancel it), otherwise the
 * finished run as `toJson` shapes it. `toEvent` reshapes (or drops, with null) each event for
 * callers that must not see everything, such as an app's end users.
 *
 * @example return answerRun(c, deps, runner, { workspaceId, workflow, inputs, trigger: "api" }, (result) => finishedRunJson(result, context));
 */
export async function answerRun(
  c: Context,
  deps: Pick<Deps, "logger">,
  runner: WorkflowRunner,
  request: RunRequest,
  toJson: (result: RunResult) => unknown,
  toEvent: (event: RunStreamEvent) => RunStreamEvent | null = (event) => event,
  onFinished?: (result: RunResult) => Promise<void>,
): Promise<Response> {
  if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
    const requestId = c.get("requestId") as string;
    return eventStream(
      c,
      async (sse) => {
        const result = await runner.run({
          ...request,
          persistAtStart: true,
          onEvent: (event) => {
            const shown = toEvent(event);
            if (shown) void sse.send(shown.event, shown.data);
          },
        });
        await onFinished?.(result);
      },
      (error) => deps.logger.error({ request_id: requestId, err: error }, "workflow run stream failed"),
    );
  }
  const result = await runner.run(request);
  await onFinished?.(result);
  return c.json(toJson(result) as object, 200);
}
