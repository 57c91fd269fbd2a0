import { ApiError, CommonErrors, eventStream, type Logger } from "@app/http";
import type { Context } from "hono";
import type { Deps } from "../deps.ts";
import type { PreparedTurn } from "./prepare-agent-turn.ts";
import { type ChatEvent, runAgentTurn, TurnAbortedError, type TurnResult } from "./run-agent-turn.ts";

/** Not a real status: nobody is left to read it, but the request log shows what happened. */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * Runs a prepared turn and answers it: the finished turn as JSON, or with `Accept:
 * text/event-stream` its events as they happen (`conversation`, `text_delta`, `tool_call`,
 * `tool_result`, then `finish` or `error`). The workspace's chat and an app's public chat answer
 * through here, so both stream the same events; `shown` lets the public chat answer less (no tool
 * inputs and outputs).
 *
 * @example return answerTurn(c, deps, await prepareAgentTurn(deps, workspaceId, context, body));
 */
export async function answerTurn(
  c: Context,
  deps: Pick<Deps, "db" | "clock" | "config" | "logger" | "ai" | "agentTools">,
  prepared: PreparedTurn,
  shown: TurnView = fullView,
): Promise<Response> {
  const events = runAgentTurn(deps, prepared, c.req.raw.signal);
  const isStreaming = (c.req.header("accept") ?? "").includes("text/event-stream");
  try {
    if (!isStreaming) {
      let next = await events.next();
      while (!next.done) next = await events.next();
      return c.json(shown.answer(next.value) as object, 200);
    }
    // Wait for the model's first event before answering 200: a refused key or a rate limit
    // then still gets its own HTTP status, and the first token is not delayed by it.
    const buffered: ChatEvent[] = [];
    let next = await events.next();
    while (!next.done && next.value.event === "conversation") {
      buffered.push(next.value);
      next = await events.next();
    }
    const first = next;
    const requestId = c.get("requestId") as string;
    return eventStream(
      c,
      async (sse, signal) => {
        try {
          // The headers, the conversation and the first model event go out in one write.
          for (const event of buffered) void sse.send(event.event, shown.event(event).data);
          let current = first;
          while (!current.done) {
            await sse.send(current.value.event, shown.event(current.value).data);
            current = await events.next();
          }
          await sse.send("finish", finishData(current.value));
        } catch (error) {
          if (error instanceof TurnAbortedError || signal.aborted) return;
          const apiError = asApiError(error, deps.logger, requestId);
          await sse.send("error", { status: apiError.status, ...apiError.toBody() });
        }
      },
      (error) => deps.logger.error({ request_id: requestId, err: error }, "chat stream failed"),
    );
  } catch (error) {
    if (error instanceof TurnAbortedError) return c.body(null, CLIENT_CLOSED_REQUEST as 200);
    throw error;
  }
}

/** What a caller sees of a turn: the finished answer and each event. */
export interface TurnView {
  answer(result: TurnResult): unknown;
  event(event: ChatEvent): ChatEvent;
}

const fullView: TurnView = { answer: (result) => result, event: (event) => event };

function finishData(result: TurnResult) {
  return {
    conversation_id: result.conversation_id,
    message_id: result.message.id,
    finish_reason: result.finish_reason,
    steps: result.steps,
    usage: result.usage,
    citations: result.message.citations,
  };
}

/** Errors after the stream began become an `error` event; unexpected ones are logged and kept vague. */
function asApiError(error: unknown, logger: Logger, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  logger.error({ request_id: requestId, err: error }, "chat stream failed");
  return CommonErrors.INTERNAL();
}
