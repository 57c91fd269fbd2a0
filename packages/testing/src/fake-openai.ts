import type { ServerResponse } from "node:http";
import {
  asArray,
  asRecord,
  countUsage,
  type FakeMessage,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeReply,
  type FakeTurn,
  helloScript,
  parseJsonOr,
  sendJson,
  startEventStream,
  startFakeHttp,
  textChunks,
} from "./fake-model.ts";

/**
 * A fake of OpenAI's chat completions API (`POST /v1/chat/completions`, JSON and SSE, tool
 * calls, `stream_options.include_usage`) and `GET /v1/models`. The same path serves the
 * openai-compatible providers (Ollama, vLLM, …) and Mistral, Groq, DeepSeek and xAI's chat.
 *
 * @example
 * const fake = await startFakeOpenAI({ apiKey: "sk-test" });
 * const openai = createOpenAI({ baseURL: fake.baseUrl, apiKey: "sk-test" });
 * await generateText({ model: openai.chat("gpt-4o-mini"), prompt: "hi" });
 */
export async function startFakeOpenAI(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const turns: FakeTurn[] = [];
  const provider: Partial<FakeProvider> = { turns, script: options.script ?? helloScript };
  const http = await startFakeHttp((request, response) => {
    const apiKey = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      return sendError(response, 401, "Incorrect API key provided.", "invalid_api_key");
    }
    if (request.method === "GET" && request.path === "/v1/models") {
      return sendJson(response, 200, {
        object: "list",
        data: (options.models ?? ["fake-model"]).map((id) => ({
          id,
          object: "model",
          created: 1_700_000_000,
          owned_by: "fake",
        })),
      });
    }
    if (request.method !== "POST" || request.path !== "/v1/chat/completions") {
      return sendError(response, 404, `Unknown route ${request.method} ${request.path}`, "not_found");
    }
    const body = asRecord(request.body);
    const turn: FakeTurn = {
      protocol: "openai",
      model: String(body.model ?? ""),
      messages: normaliseMessages(asArray(body.messages)),
      tools: asArray(body.tools).map((tool) => String(asRecord(asRecord(tool).function).name ?? "")),
      toolSchemas: Object.fromEntries(
        asArray(body.tools).map((tool) => {
          const declaration = asRecord(asRecord(tool).function);
          return [String(declaration.name ?? ""), declaration.parameters];
        }),
      ),
      isStreaming: body.stream === true,
      apiKey,
    };
    turns.push(turn);
    const reply = (provider.script ?? helloScript)(turn);
    if ("hang" in reply) return;
    if ("error" in reply) {
      return sendError(response, reply.error.status, reply.error.message, "fake_error", reply.error.headers);
    }
    const includeUsage = asRecord(body.stream_options).include_usage === true;
    if (turn.isStreaming) return streamReply(response, turn, reply, includeUsage);
    return sendJson(response, 200, completion(turn, reply));
  });
  return Object.assign(provider, {
    url: http.url,
    baseUrl: `${http.url}/v1`,
    abortedCount: http.abortedCount,
    whenAborted: http.whenAborted,
    close: http.close,
  }) as FakeProvider;
}

type Answer = Exclude<FakeReply, { hang: true } | { error: unknown }>;

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  code: string,
  headers: Record<string, string> = {},
): void {
  sendJson(
    response,
    status,
    { error: { message, type: "invalid_request_error", param: null, code } },
    headers,
  );
}

function toolCallsOf(reply: Answer) {
  if (!("toolCalls" in reply)) return [];
  return reply.toolCalls.map((call, index) => ({
    id: `call_${index}_${Math.random().toString(36).slice(2, 10)}`,
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
}

function usageJson(turn: FakeTurn, reply: Answer) {
  const usage = countUsage(turn, reply);
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
  };
}

function completion(turn: FakeTurn, reply: Answer) {
  const toolCalls = toolCallsOf(reply);
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: turn.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "text" in reply ? reply.text : null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: usageJson(turn, reply),
  };
}

function streamReply(response: ServerResponse, turn: FakeTurn, reply: Answer, includeUsage: boolean): void {
  const write = startEventStream(response);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: turn.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  write(chunk({ role: "assistant", content: "" }));
  const toolCalls = toolCallsOf(reply);
  if ("text" in reply) for (const piece of textChunks(reply.text)) write(chunk({ content: piece }));
  toolCalls.forEach((call, index) => {
    write(
      chunk({
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
        ],
      }),
    );
    write(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  });
  write(chunk({}, toolCalls.length > 0 ? "tool_calls" : "stop"));
  if (includeUsage) {
    write({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      model: turn.model,
      choices: [],
      usage: usageJson(turn, reply),
    });
  }
  write("[DONE]");
  response.end();
}

function normaliseMessages(raw: unknown[]): FakeMessage[] {
  const callNames = new Map<string, string>();
  return raw.map((entry) => {
    const message = asRecord(entry);
    const role = String(message.role);
    const toolCalls = asArray(message.tool_calls).map((call) => {
      const fn = asRecord(asRecord(call).function);
      callNames.set(String(asRecord(call).id), String(fn.name));
      return { name: String(fn.name), input: asRecord(parseJsonOr(String(fn.arguments ?? "{}"), {})) };
    });
    const text = contentText(message.content);
    if (role === "tool") {
      const name = callNames.get(String(message.tool_call_id)) ?? "";
      return { role: "tool", text, toolCalls: [], toolResults: [{ name, output: parseJsonOr(text, text) }] };
    }
    const normalisedRole =
      role === "system" || role === "developer" ? "system" : role === "assistant" ? "assistant" : "user";
    return { role: normalisedRole, text, toolCalls, toolResults: [] };
  });
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => asRecord(part))
    .filter((part) => part.type === "text")
    .map((part) => String(part.text))
    .join("");
}
