import { describe, expect, it } from "vitest";
import { summarizeToolResult } from "./mcp-result.ts";

describe("summarizeToolResult", () => {
  it("joins text, names images and resources instead of inlining their bytes, and keeps structured content", () => {
    const summary = summarizeToolResult(
      {
        content: [
          { type: "text", text: "first" },
          { type: "image", data: "A".repeat(400), mimeType: "image/png" },
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
          { type: "resource", resource: { uri: "file:///b.txt", text: "inline text" } },
        ],
        structuredContent: { answer: 42 },
      },
      1000,
    );
    expect(summary).toEqual({
      text: "first\n[image image/png, 300 bytes]\n[resource file:///a.txt (a.txt)]\ninline text",
      structured: { answer: 42 },
      isError: false,
    });
  });

  it("cuts long text and leaves out structured content too large to cut", () => {
    const summary = summarizeToolResult(
      {
        content: [{ type: "text", text: "x".repeat(50) }],
        structuredContent: { long: "y".repeat(50) },
        isError: true,
      },
      20,
    );
    expect(summary).toEqual({ text: `${"x".repeat(20)}…[truncated]`, isError: true });
  });
});
