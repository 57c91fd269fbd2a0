import {
  applyEdgeChanges,
  applyNodeChanges,
  type Edge,
  type EdgeChange,
  type NodeChange,
} from "@xyflow/react";
import { useCallback, useRef, useState } from "react";
import type { EditorNode } from "./graph.ts";
import type { Snapshot } from "./graph-edits.ts";
import { useHistory } from "./useHistory.ts";

/**
 * The editor's nodes and edges with undo and redo. Every function it answers keeps its identity
 * across renders: React Flow copies each callback prop into its store with a store update that
 * runs every node's, edge's and minimap node's selector, and compares per-node props by identity,
 * so a new callback on each render costs the whole canvas a pass (a thousand nodes, every frame of
 * a drag).
 * @example const graph = useEditorGraph(toEditor(workflow.graph)); graph.change((g) => removeNode(g, "llm_1"));
 */
export function useEditorGraph(initial: Snapshot) {
  const [graph, setGraph] = useState(initial);
  const history = useHistory<Snapshot>();
  // The latest graph, for callbacks that must not change with it. Every change goes through
  // `show`, which sets it before the state: it is never behind. (Synced from the rendered state in
  // an effect instead, it could step back to an older graph while a newer one waited to render,
  // and an edit made in that moment would drop the newer one's change.)
  const current = useRef(graph);

  const show = useCallback((next: Snapshot) => {
    current.current = next;
    setGraph(next);
  }, []);

  /** Changes the graph as one undoable step. */
  const change = useCallback(
    (edit: (graph: Snapshot) => Snapshot) => {
      history.record(current.current);
      show(edit(current.current));
    },
    [history.record, show],
  );
  /** Changes what is shown without an undo step (selection). */
  const select = useCallback((edit: (graph: Snapshot) => Snapshot) => show(edit(current.current)), [show]);
  /** Records the graph as it is before a change React Flow makes itself (a drag, a delete). */
  const record = useCallback(() => history.record(current.current), [history.record]);
  const undo = useCallback(() => {
    const previous = history.undo(current.current);
    if (previous) show(previous);
  }, [history.undo, show]);
  const redo = useCallback(() => {
    const next = history.redo(current.current);
    if (next) show(next);
  }, [history.redo, show]);

  // Moves, selections and measurements from React Flow: not undo steps of their own.
  const onNodesChange = useCallback(
    (changes: NodeChange<EditorNode>[]) =>
      show({ ...current.current, nodes: applyNodeChanges(changes, current.current.nodes) }),
    [show],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange<Edge>[]) =>
      show({ ...current.current, edges: applyEdgeChanges(changes, current.current.edges) }),
    [show],
  );

  return {
    nodes: graph.nodes,
    edges: graph.edges,
    onNodesChange,
    onEdgesChange,
    change,
    select,
    record,
    undo,
    redo,
    canUndo: history.canUndo,
    canRedo: history.canRedo,
  };
}
