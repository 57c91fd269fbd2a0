import { type Dispatch, type SetStateAction, useEffect, useState } from "react";
import type { ApiGraph } from "./graph.ts";
import { type GraphIssue, validateGraph } from "./queries.ts";

/** Long enough that typing or dragging asks once when it pauses, not on every change. */
const PAUSE_MS = 300;

/**
 * The server's issues with `graph`, asked again after each pause in editing; a newer graph
 * cancels the pending question. The setter lets a refused save show its issues the same way.
 * @example const [issues, setIssues] = useLiveValidation(graph);
 */
export function useLiveValidation(
  graph: ApiGraph,
  validate: (graph: ApiGraph, signal: AbortSignal) => Promise<{ issues: GraphIssue[] }> = validateGraph,
): [GraphIssue[], Dispatch<SetStateAction<GraphIssue[]>>] {
  const [issues, setIssues] = useState<GraphIssue[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      validate(graph, controller.signal)
        .then((result) => setIssues(result.issues))
        // Checking as you edit is a convenience: when it fails (offline, server restarting) the
        // save still validates and shows its own error.
        .catch(() => undefined);
    }, PAUSE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [graph, validate]);
  return [issues, setIssues];
}
