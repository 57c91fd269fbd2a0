import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { AgentVersion, WorkflowVersion } from "../api/schema.gen.ts";
import type { AppTarget } from "./queries.ts";

/** What the version list shows of an agent's or a workflow's version. */
export type Version = Pick<AgentVersion | WorkflowVersion, "version" | "notes" | "created_by" | "created_at">;

/** How many versions the Publish panel shows before "Load more". */
export const VERSIONS_SHOWN = 5;

/**
 * The API path of an agent or a workflow, and the query key its editor reads it under.
 *
 * @example targetPath({ kind: "agent", id: "agt_1" }) // "/api/agents/agt_1"
 */
export function targetPath(target: AppTarget): string {
  return `/api/${target.kind === "agent" ? "agents" : "workflows"}/${target.id}`;
}

function targetKey(target: AppTarget) {
  return [target.kind === "agent" ? "agents" : "workflows", target.id];
}

/** The published versions, newest first, a few at a time. */
export function useVersions(target: AppTarget) {
  return usePagedList<Version>([...targetKey(target), "versions"], `${targetPath(target)}/versions`, {
    pageSize: VERSIONS_SHOWN,
  });
}

/** Publishes the saved draft as the next version; the agent or workflow is read again for its new state. */
export function usePublish(target: AppTarget) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (notes: string) =>
      api<Version>(`${targetPath(target)}/versions`, { json: notes.trim() ? { notes: notes.trim() } : {} }),
    onSuccess: () => client.invalidateQueries({ queryKey: targetKey(target) }),
  });
}
