import { newId } from "@app/core";
import { writeTogether } from "@app/db";
import { agentTurnsTotal, aiTelemetry } from "@app/observability";
import {
  type LanguageModelUsage,
  type ModelMessage,
  type StepResult,
  stepCountIs,
  streamText,
  type ToolSet,
} from "ai";
import type { SQLWrapper } from "drizzle-orm";
import { type AnnotationMatch, annotationHitWrite } from "../annotations/find-annotation-reply.ts";
import type { Deps } from "../deps.ts";
import { outboundFetch } from "../outbound/outbound-fetch.ts";
import { ProviderErrors, providerApiError } from "../providers/errors.ts";
import { createLanguageModel } from "../providers/language-model.ts";
import { meterModel } from "../providers/metered-model.ts";
import { modelCallWrites } from "../usage/record-model-calls.ts";
import { buildAgentTools } from "./agent-tools.ts";
import type { AgentTool } from "./contract.ts";
import { type ToolCallSummary, toConversationJson, toMessageJson } from "./conversation-json.ts";
import type { PreparedTurn, TurnSpending } from "./prepare-agent-turn.ts";
import { conversationWrite, saveTurn } from "./save-turn.ts";

/** What a streaming client receives, in order; `finish` and `error` are added by the route. */
export type ChatEvent =
  | { event: "conversation"; data: ReturnType<typeof toConversationJson> }
  | { event: "text_delta"; data: { text: string } }
  | { event: "tool_call"; data: { id: string; name: string; input: unknown } }
  | { event: "tool_result"; data: { id: string; name: string; output: unknown; is_error: boolean } };

export interface TurnResult {
  conversation_id: string;
  message: ReturnType<typeof toMessageJson>;
  steps: number;
  finish_reason: string;
  usage: { input_tokens: number; output_tokens: number };
}

/** The client went away; nothing is answered and nothing but usage is stored. */
export class TurnAbortedError extends Error {
  override name = "TurnAbortedError";
}

interface FinishedTurn {
  steps: StepResult<ToolSet>[];
  messages: ModelMessage[];
  finishReason: string;
  usage: LanguageModelUsage;
}

class ModelStreamError extends Error {
  constructor(readonly error: unknown) {
    super("model stream failed");
  }
}

/**
 * Runs one turn of an agent as a stream of events: the model gets the instructions, the memory
 * window and the message, calls tools for up to `maxSteps` steps, and the finished turn is
 * stored. Aborting `signal` (a client that disconnected) cancels the provider call; every model
 * call is recorded for billing whatever the outcome.
 *
 * @example for await (const event of runAgentTurn(deps, prepared, request.signal)) send(event);
 */
export async function* runAgentTurn(
  deps: Pick<Deps, "db" | "clock" | "config" | "logger" | "ai" | "agentTools">,
  turn: PreparedTurn,
  signal: AbortSignal,
): AsyncGenerator<ChatEvent, TurnResult> {
  if (turn.annotation) return yield* answerWithAnnotation(deps, turn, turn.annotation);
  const { agent, access, conversation } = turn;
  const userAt = later(deps.clock.now(), turn.lastAt);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), deps.ai.timeoutMs);
  const turnSignal = AbortSignal.any([signal, deadline.signal]);
  const { model, meter } = meterModel(await createLanguageModel(access, agent.model), {
    provider: agent.provider,
    model: agent.model,
    now: () => deps.clock.now(),
  });
  const origin = {
    workspaceId: turn.workspaceId,
    source: "agent_chat" as const,
    agentId: agent.id,
    conversationId: conversation.id,
  };
  // A finished turn writes its model calls with its messages; every other ending records them alone.
  let isUsageRecorded = false;
  try {
    yield { event: "conversation", data: toConversationJson(conversation) };
    const tools = await buildAgentTools(agent.tools as AgentTool[], {
      ports: deps.agentTools,
      workspaceId: turn.workspaceId,
      knowledgeBaseIds: agent.knowledgeBaseIds,
      allowPrivateUrls: deps.config.allowPrivateUrls,
      outboundFetch: outboundFetch({ allowPrivate: deps.config.allowPrivateUrls }),
      signal: turnSignal,
      depth: turn.depth,
    });
    const hasTools = Object.keys(tools).length > 0;
    // Taken from onFinish, which the SDK awaits before it closes the stream: the result's promises
    // (`steps`, `response`, `totalUsage`…) each tee the whole stream again and read it through.
    let finished: FinishedTurn | undefined;
    const result = streamText({
      model,
      ...(agent.instructions ? { system: agent.instructions } : {}),
      messages: [...turn.history, { role: "user", content: turn.message }],
      ...(hasTools ? { tools, stopWhen: stepCountIs(deps.ai.maxSteps) } : {}),
      ...(agent.temperature === null ? {} : { temperature: agent.temperature }),
      // Retrying inside a turn would stall a streaming client for seconds with no sign; the
      // caller gets the provider's Retry-After instead and decides.
      maxRetries: 0,
      abortSignal: turnSignal,
      experimental_telemetry: aiTelemetry(),
      // Errors arrive as stream parts and are answered from there; the default prints them.
      onError: () => {},
      onFinish: ({ steps, response, finishReason, totalUsage }) => {
        finished = { steps, messages: response.messages, finishReason, usage: totalUsage };
      },
    });
    let text = "";
    const toolCalls = new Map<string, ToolCallSummary>();
    const toolStarts = new Map<string, number>();
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          text += part.text;
          yield { event: "text_delta", data: { text: part.text } };
          break;
        case "tool-call":
          toolStarts.set(part.toolCallId, performance.now());
          toolCalls.set(part.toolCallId, {
            id: part.toolCallId,
            name: part.toolName,
            input: part.input,
            output: null,
            is_error: false,
          });
          yield { event: "tool_call", data: { id: part.toolCallId, name: part.toolName, input: part.input } };
          break;
        case "tool-result":
        case "tool-error": {
          const isError =
            part.type === "tool-error" || hasErrorKey(part.type === "tool-result" ? part.output : null);
          const output = part.type === "tool-result" ? part.output : { error: errorText(part.error) };
          const call = toolCalls.get(part.toolCallId);
          const started = toolStarts.get(part.toolCallId);
          const durationMs = started === undefined ? null : Math.round(performance.now() - started);
          if (call) Object.assign(call, { output, is_error: isError, duration_ms: durationMs });
          yield {
            event: "tool_result",
            data: { id: part.toolCallId, name: part.toolName, output, is_error: isError },
          };
          break;
        }
        case "error":
          throw new ModelStreamError(part.error);
        case "abort":
          throw new TurnAbortedError("aborted");
      }
    }
    if (!finished) throw new ModelStreamError(new Error("The model's stream ended without finishing."));
    const { steps, messages, finishReason, usage } = finished;
    const isStepLimit = hasTools && finishReason === "tool-calls" && steps.length >= deps.ai.maxSteps;
    const finish = isStepLimit ? "step_limit" : finishReason;
    const assistantAt = later(deps.clock.now(), userAt);
    const usageWrites = modelCallWrites(deps, origin, meter.settle());
    const [, saved] = await saveTurn(
      deps.db,
      { conversation, isNew: turn.isNewConversation },
      {
        id: newId("msg", userAt.getTime()),
        workspaceId: turn.workspaceId,
        conversationId: conversation.id,
        role: "user",
        content: turn.message,
        createdAt: userAt,
      },
      {
        id: newId("msg", assistantAt.getTime()),
        workspaceId: turn.workspaceId,
        conversationId: conversation.id,
        role: "assistant",
        content: text,
        toolCalls: [...toolCalls.values()],
        modelMessages: messages,
        provider: agent.provider,
        model: agent.model,
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        finishReason: finish,
        version: turn.version,
        source: "model",
        latencyMs: elapsedSince(turn.startedAt),
        createdAt: assistantAt,
      },
      [...usageWrites.writes, ...spentWrites(turn, usageWrites.spent)],
    );
    usageWrites.countCommitted();
    isUsageRecorded = true;
    return {
      conversation_id: conversation.id,
      message: toMessageJson(saved),
      steps: steps.length,
      finish_reason: finish,
      usage: { input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0 },
    };
  } catch (error) {
    if (deadline.signal.aborted) {
      throw ProviderErrors.PROVIDER_TIMEOUT({
        message: `The turn did not finish within ${Math.round(deps.ai.timeoutMs / 1000)} s.`,
      });
    }
    if (signal.aborted) throw new TurnAbortedError("the client went away");
    if (error instanceof ModelStreamError) {
      throw providerApiError(error.error, { provider: agent.provider, apiKey: access.apiKey });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    agentTurnsTotal.inc({
      outcome: isUsageRecorded
        ? "completed"
        : deadline.signal.aborted
          ? "timeout"
          : signal.aborted
            ? "aborted"
            : "failed",
    });
    if (!isUsageRecorded) {
      const usageWrites = modelCallWrites(deps, origin, meter.settle());
      // A client may have seen the new conversation's id (the first event): it stays, empty.
      const writes = [
        ...(turn.isNewConversation
          ? [conversationWrite(deps.db, conversation, true, conversation.updatedAt)]
          : []),
        ...usageWrites.writes,
        ...spentWrites(turn, usageWrites.spent),
      ];
      await writeTogether(deps.db, writes).then(usageWrites.countCommitted, (error: unknown) => {
        deps.logger.error(
          { err: error, conversation_id: conversation.id },
          "the failed turn's conversation and model calls not recorded",
        );
      });
    }
  }
}

/**
 * A turn answered by an annotation (the agent's annotation_reply found a question similar enough):
 * no model is called, the answer is stored as the annotation's with its similarity, and the
 * annotation's hit is counted in the same statement. Clients see the same events as a model turn.
 */
async function* answerWithAnnotation(
  deps: Pick<Deps, "db" | "clock">,
  turn: PreparedTurn,
  annotation: AnnotationMatch,
): AsyncGenerator<ChatEvent, TurnResult> {
  const { conversation } = turn;
  const userAt = later(deps.clock.now(), turn.lastAt);
  yield { event: "conversation", data: toConversationJson(conversation) };
  yield { event: "text_delta", data: { text: annotation.answer } };
  const assistantAt = later(deps.clock.now(), userAt);
  const [, saved] = await saveTurn(
    deps.db,
    { conversation, isNew: turn.isNewConversation },
    {
      id: newId("msg", userAt.getTime()),
      workspaceId: turn.workspaceId,
      conversationId: conversation.id,
      role: "user",
      content: turn.message,
      createdAt: userAt,
    },
    {
      id: newId("msg", assistantAt.getTime()),
      workspaceId: turn.workspaceId,
      conversationId: conversation.id,
      role: "assistant",
      content: annotation.answer,
      finishReason: "stop",
      version: turn.version,
      source: "annotation",
      annotationId: annotation.id,
      annotationSimilarity: annotation.similarity,
      latencyMs: elapsedSince(turn.startedAt),
      createdAt: assistantAt,
    },
    [
      annotationHitWrite(deps.db, annotation.id, assistantAt),
      ...spentWrites(turn, { credits: 0, inputTokens: 0, outputTokens: 0 }),
    ],
  );
  agentTurnsTotal.inc({ outcome: "completed" });
  return {
    conversation_id: conversation.id,
    message: toMessageJson(saved),
    steps: 0,
    finish_reason: "stop",
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

function elapsedSince(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

function spentWrites(turn: PreparedTurn, spent: TurnSpending): SQLWrapper[] {
  return turn.spentWrites?.(spent) ?? [];
}

/** A time strictly after `previous`, so ids (which start with the time) keep turn order. */
function later(now: Date, previous: Date | null): Date {
  if (!previous || now.getTime() > previous.getTime()) return now;
  return new Date(previous.getTime() + 1);
}

function hasErrorKey(output: unknown): boolean {
  return output !== null && typeof output === "object" && "error" in output;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
