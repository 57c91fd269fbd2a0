import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * An MCP tool result as text (what a model reads) and its structured content, each cut to
 * `maxChars`: images, audio and resources are named rather than inlined, since their bytes would
 * only crowd out the conversation.
 *
 * @example const { text, structured, isError } = summarizeToolResult(result, 32_000);
 */
export function summarizeToolResult(
  result: CallToolResult,
  maxChars: number,
): { text: string; structured?: unknown; isError: boolean } {
  const parts = (result.content ?? []).map((item) => {
    switch (item.type) {
      case "text":
        return item.text;
      case "image":
      case "audio":
        return `[${item.type} ${item.mimeType}, ${Math.floor((item.data.length * 3) / 4)} bytes]`;
      case "resource_link":
        return `[resource ${item.uri}${item.name ? ` (${item.name})` : ""}]`;
      case "resource":
        return "text" in item.resource ? item.resource.text : `[resource ${item.resource.uri}]`;
      default:
        return "";
    }
  });
  let text = parts.filter((part) => part !== "").join("\n");
  if (text.length > maxChars) text = `${text.slice(0, maxChars)}…[truncated]`;
  const isError = result.isError === true;
  if (result.structuredContent === undefined) return { text, isError };
  const json = JSON.stringify(result.structuredContent);
  // Cut JSON is not JSON: too large a structure is left out and the text stands for it.
  if (json.length > maxChars) return { text, isError };
  return { text, structured: result.structuredContent, isError };
}
