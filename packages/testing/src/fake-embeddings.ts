import { asArray, asRecord, sendJson, startFakeHttp } from "./fake-model.ts";

/** One call to `POST /v1/embeddings`, in arrival order. */
export interface FakeEmbeddingCall {
  model: string;
  input: string[];
  apiKey: string | undefined;
  /** 0-based number of the call. */
  index: number;
}

/** What the fake answers to one call: the vectors (once `after` settles), an error, or nothing at all. */
export type FakeEmbeddingReply =
  | { embed: true; after?: Promise<unknown> }
  | { error: { status: number; message: string } }
  | { hang: true };

export interface FakeEmbeddingsOptions {
  apiKey?: string;
  /** Width of the default vectors. */
  dimensions?: number;
  /** How one text becomes a vector; by default a hashed bag of its words, normalised. */
  embed?: (text: string) => number[];
  /** Decides each call's answer; by default every call is embedded. */
  script?: (call: FakeEmbeddingCall) => FakeEmbeddingReply;
}

export interface FakeEmbeddings {
  url: string;
  /** The base URL the AI SDK takes (`…/v1`). */
  baseUrl: string;
  calls: FakeEmbeddingCall[];
  close(): Promise<void>;
}

/**
 * A fake of OpenAI's embeddings API (`POST /v1/embeddings`), which OpenAI-compatible servers
 * (Ollama, vLLM, LM Studio) speak too. Scripts make it fail, rate-limit or hang per call.
 *
 * @example
 * const fake = await startFakeEmbeddings({ script: ({ index }) => index < 2 ? { error: { status: 500, message: "boom" } } : { embed: true } });
 * const openai = createOpenAICompatible({ name: "x", baseURL: fake.baseUrl, apiKey: "k" });
 * await embedMany({ model: openai.embeddingModel("fake-embed"), values: ["hello"] });
 */
export async function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const calls: FakeEmbeddingCall[] = [];
  const embed = options.embed ?? ((text: string) => hashedBagOfWords(text, options.dimensions ?? 16));
  const http = await startFakeHttp(async (request, response) => {
    const apiKey = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      return sendJson(response, 401, {
        error: {
          message: "Incorrect API key provided.",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      });
    }
    if (request.method !== "POST" || request.path !== "/v1/embeddings") {
      return sendJson(response, 404, {
        error: { message: `Unknown route ${request.method} ${request.path}` },
      });
    }
    const body = asRecord(request.body);
    const rawInput = body.input;
    const input = (Array.isArray(rawInput) ? asArray(rawInput) : [rawInput]).map((value) =>
      String(value ?? ""),
    );
    const call: FakeEmbeddingCall = { model: String(body.model ?? ""), input, apiKey, index: calls.length };
    calls.push(call);
    const reply = options.script?.(call) ?? { embed: true };
    if ("hang" in reply) return;
    if ("error" in reply) {
      return sendJson(response, reply.error.status, {
        error: { message: reply.error.message, type: "server_error", code: null },
      });
    }
    if (reply.after) await reply.after;
    const tokens = input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    return sendJson(response, 200, {
      object: "list",
      data: input.map((text, index) => ({ object: "embedding", index, embedding: embed(text) })),
      model: call.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  });
  return { url: http.url, baseUrl: `${http.url}/v1`, calls, close: http.close };
}

function hashedBagOfWords(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (let i = 0; i < word.length; i++) hash = (hash * 31 + word.charCodeAt(i)) >>> 0;
    vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}
