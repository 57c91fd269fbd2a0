import { useMutation, useQuery } from "@tanstack/react-query";
import { api, apiWithEtag } from "../api/client.ts";
import type { Agent, AgentDiff, Workflow, WorkflowDiff } from "../api/schema.gen.ts";
import type { AppTarget } from "../apps/queries.ts";
import { targetPath } from "../apps/version-queries.ts";

/** One side of a comparison: a published version's number, or the draft. */
export type Side = number | "draft";

/**
 * The API's differences between two sides of an agent or a workflow (`GET …/versions/{a}/diff/{b}`).
 *
 * @example const diff = useVersionDiff({ kind: "workflow", id }, 2, "draft");
 */
export function useVersionDiff(target: AppTarget, from: Side | null, to: Side) {
  return useQuery({
    queryKey: [target.kind === "agent" ? "agents" : "workflows", target.id, "diff", from, to],
    queryFn: () => api<WorkflowDiff | AgentDiff>(`${targetPath(target)}/versions/${from}/diff/${to}`),
    enabled: from !== null,
  });
}

/**
 * Makes a version the draft (`POST …/versions/{n}/restore`), based on the revision the editor holds.
 *
 * @example restore.mutate({ version: 2, ifMatch: etag })
 */
export function useRestore<T extends Agent | Workflow>(target: AppTarget) {
  return useMutation({
    mutationFn: ({ version, ifMatch }: { version: number; ifMatch: string | undefined }) =>
      apiWithEtag<T>(`${targetPath(target)}/versions/${version}/restore`, { method: "POST", ifMatch }),
  });
}
