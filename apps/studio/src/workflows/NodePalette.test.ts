import type { DragEvent } from "react";
import { describe, expect, it } from "vitest";
import { droppedNodeType } from "./NodePalette.tsx";

const drop = (data: Record<string, string>) =>
  ({ dataTransfer: { getData: (format: string) => data[format] ?? "" } }) as unknown as DragEvent;

describe("droppedNodeType", () => {
  it("reads the node type a palette item carries", () => {
    expect(droppedNodeType(drop({ "application/x-workflow-node": "llm" }))).toBe("llm");
  });

  it("ignores files, text and unknown types dropped on the canvas", () => {
    expect(droppedNodeType(drop({ "text/plain": "llm" }))).toBeNull();
    expect(droppedNodeType(drop({ "application/x-workflow-node": "spreadsheet" }))).toBeNull();
  });
});
