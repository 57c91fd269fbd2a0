import type { NodeProps } from "@xyflow/react";
import { describe, expect, it } from "vitest";
import type { EditorNode } from "./graph.ts";
import { isSameCard } from "./StepNode.tsx";

const data: EditorNode["data"] = { apiType: "http", config: {}, extra: {}, issues: [] };
const props = {
  id: "http_1",
  data,
  type: "step",
  selected: false,
  positionAbsoluteX: 0,
  positionAbsoluteY: 0,
  zIndex: 0,
  dragging: false,
  selectable: true,
  deletable: true,
  draggable: true,
  isConnectable: true,
} as NodeProps<EditorNode>;

describe("isSameCard", () => {
  it("renders a card again only for what it shows, not for a move, a measurement or a drag", () => {
    expect(
      isSameCard(props, {
        ...props,
        positionAbsoluteX: 300,
        width: 180,
        height: 60,
        zIndex: 1000,
        dragging: true,
      }),
    ).toBe(true);
    expect(isSameCard(props, { ...props, selected: true })).toBe(false);
    expect(isSameCard(props, { ...props, data: { ...data, runStatus: "failed" } })).toBe(false);
    expect(isSameCard(props, { ...props, id: "http_2" })).toBe(false);
  });
});
