// Server-Sent Events over fetch: EventSource cannot POST or send an Authorization header.

/** One event as the builder sends it: a name and a JSON object. */
export interface ServerEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * Reads `response`'s event stream to its end, handing each event to `onEvent` as it arrives. Handles
 * CRLF line ends (a CR is dropped wherever a chunk ends) and data split over several `data:` lines;
 * comments and events without data are skipped.
 *
 * @example await readEventStream(response, (e) => { if (e.event === "text_delta") show(e.data.text); });
 */
export async function readEventStream(
  response: Response,
  onEvent: (event: ServerEvent) => void,
): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const dispatch = (block: string) => {
    let name = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0)
      onEvent({ event: name, data: JSON.parse(data.join("\n")) as Record<string, unknown> });
  };
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value, { stream: !done }).replace(/\r/g, "");
    let split = buffer.indexOf("\n\n");
    while (split >= 0) {
      dispatch(buffer.slice(0, split));
      buffer = buffer.slice(split + 2);
      split = buffer.indexOf("\n\n");
    }
    if (done) break;
  }
  if (buffer.trim()) dispatch(buffer);
}
