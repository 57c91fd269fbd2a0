import { and, eq, or } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { type WorkflowRow, type WorkflowVersionRow, workflowVersions } from "../schema.ts";

/** What a schedule's tick runs: the workflow with the graph it uses, and the version that graph is. */
export interface ScheduledWorkflow {
  workflow: WorkflowRow;
  /** The published version; undefined for the draft of a workflow never published. */
  version: number | undefined;
}

/**
 * The newest published version of each of these workflows that has one, by workflow id: one
 * statement for a claim's workflows.
 *
 * @example const published = await publishedVersionsOf(tx, rows.map((row) => row.workflow));
 */
export async function publishedVersionsOf(
  db: BuilderDb,
  workflows: WorkflowRow[],
): Promise<Map<string, WorkflowVersionRow>> {
  const wanted = new Map<string, number>();
  for (const workflow of workflows) {
    if (workflow.publishedVersion !== null) wanted.set(workflow.id, workflow.publishedVersion);
  }
  if (wanted.size === 0) return new Map();
  const rows = await db
    .select()
    .from(workflowVersions)
    .where(
      or(
        ...[...wanted].map(([workflowId, version]) =>
          and(eq(workflowVersions.workflowId, workflowId), eq(workflowVersions.version, version)),
        ),
      ),
    );
  return new Map(rows.map((row) => [row.workflowId, row]));
}

/**
 * The workflow as a schedule's tick runs it: its newest published version when it has one (what the
 * trigger URL and /api/mcp run too), else its draft. The claim stores the graph answered here on the
 * run row, with the version.
 *
 * @example const { workflow, version } = graphForScheduledRun(row, published.get(row.id));
 */
export function graphForScheduledRun(
  workflow: WorkflowRow,
  published: WorkflowVersionRow | undefined,
): ScheduledWorkflow {
  if (!published) return { workflow, version: undefined };
  return {
    workflow: {
      ...workflow,
      name: published.name,
      description: published.description,
      graph: published.graph,
    },
    version: published.version,
  };
}
