import { ApiError } from "@app/http";
import { aiTelemetry } from "@app/observability";
import { generateText, jsonSchema, Output } from "ai";
import { resolveProviderAccess } from "../credentials/resolve-provider-access.ts";
import type { Deps } from "../deps.ts";
import { type ModelCallOrigin, recordModelCalls } from "../usage/record-model-calls.ts";
import { providerApiError } from "./errors.ts";
import { createLanguageModel } from "./language-model.ts";
import { meterModel } from "./metered-model.ts";

export interface GenerateRequest {
  workspaceId: string;
  provider: string;
  model: string;
  system?: string | undefined;
  prompt: string;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /** A JSON Schema: the model answers JSON that matches it, returned as `json`. */
  jsonSchema?: Record<string, unknown> | undefined;
  signal: AbortSignal;
  source: ModelCallOrigin["source"];
}

/**
 * One model call on the workspace's credentials (or the server's keys), metered for usage and
 * billing like every other call; provider failures become the same clear errors as in chat.
 *
 * @example const { text, usage } = await generateForWorkspace(deps, { workspaceId, provider: "openai", model: "gpt-4o-mini", prompt, signal, source: "workflow_llm" });
 */
export async function generateForWorkspace(
  deps: Deps,
  request: GenerateRequest,
): Promise<{
  text: string;
  json?: unknown;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
}> {
  const access = await resolveProviderAccess(deps, request.workspaceId, { provider: request.provider });
  const { model, meter } = meterModel(await createLanguageModel(access, request.model), {
    provider: request.provider,
    model: request.model,
    now: () => deps.clock.now(),
  });
  try {
    const common = {
      model,
      prompt: request.prompt,
      maxRetries: 0,
      experimental_telemetry: aiTelemetry(),
      abortSignal: AbortSignal.any([request.signal, AbortSignal.timeout(deps.ai.timeoutMs)]),
      ...(request.system ? { system: request.system } : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
    };
    const result = request.jsonSchema
      ? await generateText({ ...common, output: Output.object({ schema: jsonSchema(request.jsonSchema) }) })
      : await generateText(common);
    const input = result.totalUsage.inputTokens ?? 0;
    const output = result.totalUsage.outputTokens ?? 0;
    return {
      text: result.text,
      ...(request.jsonSchema ? { json: result.output } : {}),
      usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
    };
  } catch (error) {
    if (request.signal.aborted || error instanceof ApiError) throw error;
    throw providerApiError(error, { provider: request.provider, apiKey: access.apiKey });
  } finally {
    await recordModelCalls(
      deps,
      { workspaceId: request.workspaceId, source: request.source },
      meter.settle(),
    ).catch((error: unknown) => deps.logger.error({ err: error }, "model calls not recorded"));
  }
}
