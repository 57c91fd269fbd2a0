import { useMemo, useRef } from "react";
import type { EditorNode } from "./graph.ts";
import { copyableNodes, pasteNodes } from "./graph-edits.ts";

/**
 * The editor's own clipboard of nodes (the system clipboard would need a permission prompt and
 * holds text). Copying with nothing copyable selected keeps what was copied before.
 * @example const clipboard = useClipboard(); clipboard.copy(nodes); const next = clipboard.paste(nodes);
 */
export function useClipboard() {
  const copied = useRef<EditorNode[]>([]);
  return useMemo(
    () => ({
      copy(nodes: EditorNode[]): void {
        const copyable = copyableNodes(nodes);
        if (copyable.length > 0) copied.current = copyable;
      },
      /** The nodes with the copies added and selected, or null when nothing was copied. */
      paste(nodes: EditorNode[]): EditorNode[] | null {
        return copied.current.length > 0 ? pasteNodes(nodes, copied.current) : null;
      },
    }),
    [],
  );
}
