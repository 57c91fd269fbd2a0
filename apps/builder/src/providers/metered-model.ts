import { type LanguageModel, wrapLanguageModel } from "ai";

type ModelV3 = Parameters<typeof wrapLanguageModel>[0]["model"];

/** One call to a provider's model, as billing and the usage view see it. */
export interface ModelCallRecord {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  status: "succeeded" | "failed" | "aborted";
  startedAt: Date;
}

interface Pending {
  record: ModelCallRecord;
  started: number;
}

/** Collects the calls a metered model makes; `settle` closes calls cut off by an abort. */
export interface ModelMeter {
  calls: ModelCallRecord[];
  settle(): ModelCallRecord[];
}

/**
 * Wraps a model so every call to the provider (each step of a tool loop is one) is recorded
 * with its tokens and latency, whether it succeeds, fails or is cut off.
 *
 * @example const { model, meter } = meterModel(await createLanguageModel(access, "gpt-4o"), { provider: "openai", model: "gpt-4o", now: () => new Date() });
 */
export function meterModel(
  model: LanguageModel,
  meta: { provider: string; model: string; now: () => Date },
): { model: LanguageModel; meter: ModelMeter } {
  if (typeof model === "string") throw new Error("a model instance is needed, not an id");
  const calls: ModelCallRecord[] = [];
  const pending = new Set<Pending>();
  const begin = (): Pending => {
    const entry: Pending = {
      started: performance.now(),
      record: {
        provider: meta.provider,
        model: meta.model,
        inputTokens: 0,
        outputTokens: 0,
        latencyMs: 0,
        status: "aborted",
        startedAt: meta.now(),
      },
    };
    pending.add(entry);
    return entry;
  };
  const end = (
    entry: Pending,
    status: ModelCallRecord["status"],
    usage?: { inputTokens: { total: number | undefined }; outputTokens: { total: number | undefined } },
  ) => {
    if (!pending.delete(entry)) return;
    entry.record.status = status;
    entry.record.latencyMs = Math.round(performance.now() - entry.started);
    entry.record.inputTokens = usage?.inputTokens.total ?? 0;
    entry.record.outputTokens = usage?.outputTokens.total ?? 0;
    calls.push(entry.record);
  };
  const wrapped = wrapLanguageModel({
    model: model as ModelV3,
    middleware: {
      specificationVersion: "v3",
      wrapGenerate: async ({ doGenerate, params }) => {
        const entry = begin();
        try {
          const result = await doGenerate();
          end(entry, "succeeded", result.usage);
          return result;
        } catch (error) {
          end(entry, params.abortSignal?.aborted ? "aborted" : "failed");
          throw error;
        }
      },
      wrapStream: async ({ doStream, params }) => {
        const entry = begin();
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (error) {
          end(entry, params.abortSignal?.aborted ? "aborted" : "failed");
          throw error;
        }
        const stream = result.stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              if (part.type === "finish") end(entry, "succeeded", part.usage);
              else if (part.type === "error") end(entry, params.abortSignal?.aborted ? "aborted" : "failed");
              controller.enqueue(part);
            },
          }),
        );
        return { ...result, stream };
      },
    },
  });
  return {
    model: wrapped,
    meter: {
      calls,
      settle: () => {
        for (const entry of [...pending]) end(entry, "aborted");
        return calls;
      },
    },
  };
}
