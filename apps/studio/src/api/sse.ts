import { ApiError, errorFromBody, request } from "./client.ts";

export interface ServerEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * POSTs JSON asking for an event stream and hands each Server-Sent Event to `onEvent` as it arrives.
 * A refusal before the stream starts throws with the API's message.
 *
 * @example await postEventStream("/api/agents/agt_1/chat", { message: "hi" }, (e) => console.log(e.event));
 */
export async function postEventStream(
  path: string,
  body: unknown,
  onEvent: (event: ServerEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await request(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    credentials: "same-origin",
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok || !response.body)
    throw errorFromBody(response.status, await response.text().catch(() => ""));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await reader.read();
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, "network_error", "The connection was lost before the answer finished.");
    }
    const { value, done } = chunk;
    if (done) break;
    buffer += value;
    let split = buffer.indexOf("\n\n");
    while (split >= 0) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) onEvent({ event, data: JSON.parse(data) as Record<string, unknown> });
      split = buffer.indexOf("\n\n");
    }
  }
}
