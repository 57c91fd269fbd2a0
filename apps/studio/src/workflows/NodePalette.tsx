import type { DragEvent } from "react";
import { NODE_TYPES, type NodeType } from "./graph.ts";

/** The drag data type of a palette item; the canvas's drop handler reads the node type from it. */
const DRAG_TYPE = "application/x-workflow-node";

/**
 * The node types to add: drag one onto the canvas, or click it (the keyboard's way) to add it in
 * the middle of the view.
 * @example <NodePalette isHidden={!panels.palette} onAdd={(type) => addNode(type)} />
 */
export function NodePalette({ isHidden, onAdd }: { isHidden: boolean; onAdd: (type: NodeType) => void }) {
  return (
    <nav className="palette card" aria-label="Node palette" hidden={isHidden}>
      {NODE_TYPES.map((entry) => (
        <button
          type="button"
          key={entry.type}
          className="palette-item"
          draggable
          data-testid={`palette-${entry.type}`}
          onDragStart={(event) => {
            event.dataTransfer.setData(DRAG_TYPE, entry.type);
            event.dataTransfer.effectAllowed = "move";
          }}
          onClick={() => onAdd(entry.type)}
          title={`${entry.hint} (drag onto the canvas, or click to add)`}
        >
          <strong>{entry.label}</strong>
          <span className="muted">{entry.hint}</span>
        </button>
      ))}
    </nav>
  );
}

/**
 * The node type a drop on the canvas carries from the palette, or null for anything else dropped.
 * @example const type = droppedNodeType(event); if (type) addNode(type, at);
 */
export function droppedNodeType(event: DragEvent): NodeType | null {
  const type = event.dataTransfer.getData(DRAG_TYPE);
  return NODE_TYPES.some((entry) => entry.type === type) ? (type as NodeType) : null;
}
