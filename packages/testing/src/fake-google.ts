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
  sendJson,
  startEventStream,
  startFakeHttp,
  textChunks,
} from "./fake-model.ts";

const GENERATE_PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * A fake of Google's Gemini API: `POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse` (function calls and responses, `x-goog-api-key` auth) and
 * `GET /v1beta/models`.
 *
 * @example
 * const fake = await startFakeGoogle({ apiKey: "g-test" });
 * const google = createGoogleGenerativeAI({ baseURL: fake.baseUrl, apiKey: "g-test" });
 */
export async function startFakeGoogle(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const turns: FakeTurn[] = [];
  const provider: Partial<FakeProvider> = { turns, script: options.script ?? helloScript };
  const http = await startFakeHttp((request, response) => {
    const header = request.headers["x-goog-api-key"];
    const apiKey = typeof header === "string" ? header : (request.query.get("key") ?? undefined);
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      return sendError(response, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
    }
    if (request.method === "GET" && request.path === "/v1beta/models") {
      return sendJson(response, 200, {
        models: (options.models ?? ["gemini-fake"]).map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: ["generateContent", "countTokens"],
        })),
      });
    }
    const match = GENERATE_PATH.exec(request.path);
    if (request.method !== "POST" || !match) {
      return sendError(response, 404, "NOT_FOUND", `Unknown route ${request.method} ${request.path}`);
    }
    const body = asRecord(request.body);
    const tools = asArray(body.tools).flatMap((tool) => asArray(asRecord(tool).functionDeclarations));
    const turn: FakeTurn = {
      protocol: "google",
      model: match[1] ?? "",
      messages: normaliseContents(body.systemInstruction, asArray(body.contents)),
      tools: tools.map((declaration) => String(asRecord(declaration).name ?? "")),
      toolSchemas: Object.fromEntries(
        tools.map((declaration) => [
          String(asRecord(declaration).name ?? ""),
          asRecord(declaration).parameters,
        ]),
      ),
      isStreaming: match[2] === "streamGenerateContent",
      apiKey,
    };
    turns.push(turn);
    const reply = (provider.script ?? helloScript)(turn);
    if ("hang" in reply) return;
    if ("error" in reply) {
      const status = reply.error.status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL";
      return sendError(response, reply.error.status, status, reply.error.message, reply.error.headers);
    }
    if (turn.isStreaming) return streamReply(response, turn, reply);
    return sendJson(response, 200, generateResponse(turn, reply, partsOf(reply), true));
  });
  return Object.assign(provider, {
    url: http.url,
    baseUrl: `${http.url}/v1beta`,
    abortedCount: http.abortedCount,
    whenAborted: http.whenAborted,
    close: http.close,
  }) as FakeProvider;
}

type Answer = Exclude<FakeReply, { hang: true } | { error: unknown }>;

function sendError(
  response: ServerResponse,
  status: number,
  statusName: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(response, status, { error: { code: status, message, status: statusName } }, headers);
}

function partsOf(reply: Answer): Record<string, unknown>[] {
  if ("text" in reply) return [{ text: reply.text }];
  return reply.toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.input } }));
}

function generateResponse(turn: FakeTurn, reply: Answer, parts: Record<string, unknown>[], isLast: boolean) {
  const usage = countUsage(turn, reply);
  return {
    candidates: [
      { content: { role: "model", parts }, index: 0, ...(isLast ? { finishReason: "STOP" } : {}) },
    ],
    ...(isLast
      ? {
          usageMetadata: {
            promptTokenCount: usage.input,
            candidatesTokenCount: usage.output,
            totalTokenCount: usage.input + usage.output,
          },
        }
      : {}),
    modelVersion: turn.model,
  };
}

function streamReply(response: ServerResponse, turn: FakeTurn, reply: Answer): void {
  const write = startEventStream(response);
  if ("text" in reply) {
    const pieces = textChunks(reply.text);
    pieces.forEach((piece, index) => {
      write(generateResponse(turn, reply, [{ text: piece }], index === pieces.length - 1));
    });
    if (pieces.length === 0) write(generateResponse(turn, reply, [{ text: "" }], true));
  } else {
    write(generateResponse(turn, reply, partsOf(reply), true));
  }
  response.end();
}

function normaliseContents(systemInstruction: unknown, contents: unknown[]): FakeMessage[] {
  const out: FakeMessage[] = [];
  const systemText = textOf(asArray(asRecord(systemInstruction).parts));
  if (systemText) out.push({ role: "system", text: systemText, toolCalls: [], toolResults: [] });
  for (const entry of contents) {
    const content = asRecord(entry);
    const parts = asArray(content.parts).map(asRecord);
    const toolCalls = parts
      .filter((part) => part.functionCall)
      .map((part) => {
        const call = asRecord(part.functionCall);
        return { name: String(call.name), input: asRecord(call.args) };
      });
    const toolResults = parts
      .filter((part) => part.functionResponse)
      .map((part) => {
        const result = asRecord(part.functionResponse);
        const response = asRecord(result.response);
        return { name: String(result.name), output: "content" in response ? response.content : response };
      });
    const role = toolResults.length > 0 ? "tool" : content.role === "model" ? "assistant" : "user";
    out.push({ role, text: textOf(parts), toolCalls, toolResults });
  }
  return out;
}

function textOf(parts: unknown[]): string {
  return parts
    .map(asRecord)
    .filter((part) => typeof part.text === "string")
    .map((part) => String(part.text))
    .join("");
}
