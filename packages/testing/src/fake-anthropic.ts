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

/**
 * A fake of Anthropic's Messages API: `POST /v1/messages` (JSON and its named SSE events,
 * `tool_use` / `tool_result` blocks, `x-api-key` auth) and `GET /v1/models`.
 *
 * @example
 * const fake = await startFakeAnthropic({ apiKey: "sk-ant-test" });
 * const anthropic = createAnthropic({ baseURL: fake.baseUrl, apiKey: "sk-ant-test" });
 */
export async function startFakeAnthropic(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const turns: FakeTurn[] = [];
  const provider: Partial<FakeProvider> = { turns, script: options.script ?? helloScript };
  const http = await startFakeHttp((request, response) => {
    const apiKey =
      typeof request.headers["x-api-key"] === "string" ? request.headers["x-api-key"] : undefined;
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      return sendError(response, 401, "authentication_error", "invalid x-api-key");
    }
    if (request.method === "GET" && request.path === "/v1/models") {
      const data = (options.models ?? ["fake-claude"]).map((id) => ({
        type: "model",
        id,
        display_name: id,
        created_at: "2025-01-01T00:00:00Z",
      }));
      return sendJson(response, 200, {
        data,
        has_more: false,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
      });
    }
    if (request.method !== "POST" || request.path !== "/v1/messages") {
      return sendError(response, 404, "not_found_error", `Unknown route ${request.method} ${request.path}`);
    }
    const body = asRecord(request.body);
    const turn: FakeTurn = {
      protocol: "anthropic",
      model: String(body.model ?? ""),
      messages: normaliseMessages(body.system, asArray(body.messages)),
      tools: asArray(body.tools).map((tool) => String(asRecord(tool).name ?? "")),
      toolSchemas: Object.fromEntries(
        asArray(body.tools).map((tool) => [String(asRecord(tool).name ?? ""), asRecord(tool).input_schema]),
      ),
      isStreaming: body.stream === true,
      apiKey,
    };
    turns.push(turn);
    const reply = (provider.script ?? helloScript)(turn);
    if ("hang" in reply) return;
    if ("error" in reply) {
      const type = reply.error.status === 429 ? "rate_limit_error" : "api_error";
      return sendError(response, reply.error.status, type, reply.error.message, reply.error.headers);
    }
    if (turn.isStreaming) return streamReply(response, turn, reply);
    return sendJson(response, 200, message(turn, reply));
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
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(response, status, { type: "error", error: { type, message } }, headers);
}

function blocksOf(reply: Answer) {
  if ("text" in reply) return [{ type: "text" as const, text: reply.text }];
  return reply.toolCalls.map((call, index) => ({
    type: "tool_use" as const,
    id: `toolu_${index}_${Math.random().toString(36).slice(2, 10)}`,
    name: call.name,
    input: call.input,
  }));
}

function message(turn: FakeTurn, reply: Answer) {
  const usage = countUsage(turn, reply);
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: turn.model,
    content: blocksOf(reply),
    stop_reason: "toolCalls" in reply ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

function streamReply(response: ServerResponse, turn: FakeTurn, reply: Answer): void {
  const write = startEventStream(response);
  const usage = countUsage(turn, reply);
  const send = (type: string, data: Record<string, unknown>) => write({ type, ...data }, type);
  send("message_start", {
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: turn.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  blocksOf(reply).forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const piece of textChunks(block.text)) {
        send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      }
    } else {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      send("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", {
    delta: { stop_reason: "toolCalls" in reply ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send("message_stop", {});
  response.end();
}

function normaliseMessages(system: unknown, raw: unknown[]): FakeMessage[] {
  const out: FakeMessage[] = [];
  const systemText = typeof system === "string" ? system : textOf(asArray(system));
  if (systemText) out.push({ role: "system", text: systemText, toolCalls: [], toolResults: [] });
  const callNames = new Map<string, string>();
  for (const entry of raw) {
    const message = asRecord(entry);
    const blocks =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : asArray(message.content).map(asRecord);
    const toolCalls = blocks
      .filter((block) => block.type === "tool_use")
      .map((block) => {
        callNames.set(String(block.id), String(block.name));
        return { name: String(block.name), input: asRecord(block.input) };
      });
    const toolResults = blocks
      .filter((block) => block.type === "tool_result")
      .map((block) => {
        const content = typeof block.content === "string" ? block.content : textOf(asArray(block.content));
        let output: unknown = content;
        try {
          output = JSON.parse(content);
        } catch {
          // plain-text tool results stay text
        }
        return { name: callNames.get(String(block.tool_use_id)) ?? "", output };
      });
    const role = toolResults.length > 0 ? "tool" : message.role === "assistant" ? "assistant" : "user";
    out.push({ role, text: textOf(blocks), toolCalls, toolResults });
  }
  return out;
}

function textOf(blocks: unknown[]): string {
  return blocks
    .map(asRecord)
    .filter((block) => block.type === "text")
    .map((block) => String(block.text))
    .join("");
}
