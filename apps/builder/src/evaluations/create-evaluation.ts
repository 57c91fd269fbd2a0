import { type Clock, newId } from "@app/core";
import { findAgentVersion } from "../agents/agent-versions.ts";
import { findAgent } from "../agents/find-agent.ts";
import type { BuilderDb } from "../db/index.ts";
import { VersionErrors } from "../versions/errors.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import { findWorkflowVersion } from "../workflows/workflow-versions.ts";
import type { EvaluationTarget, EvaluatorSpec } from "./contract.ts";
import { EvaluationErrors } from "./errors.ts";
import { findDataset } from "./find-dataset.ts";
import { listDatasetRows } from "./list-dataset-rows.ts";
import { type EvaluationRow, evaluationResults, evaluations } from "./schema.ts";

/**
 * Starts an evaluation: resolves the target's version ("published" becomes its number, the draft
 * null), copies the dataset's rows as pending results and stores both in one transaction; the
 * worker runs the rows. Throws the feature's 404s and 422s.
 *
 * @example const evaluation = await createEvaluation({ db, clock }, workspaceId, { target: { agent_id, version: "draft" }, dataset_id, evaluators });
 */
export async function createEvaluation(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  input: { target: EvaluationTarget; dataset_id: string; evaluators: EvaluatorSpec[]; reason?: string },
): Promise<EvaluationRow> {
  const { target } = input;
  const resolved = await resolveTarget(db, workspaceId, target);
  const dataset = await findDataset(db, workspaceId, input.dataset_id);
  if (!dataset) throw EvaluationErrors.DATASET_NOT_FOUND({ param: "dataset_id" });
  const rows = await listDatasetRows(db, dataset.id);
  if (rows.length === 0) throw EvaluationErrors.DATASET_EMPTY({ param: "dataset_id" });
  if (resolved.kind === "agent" && rows.some((row) => row.input === null)) {
    throw EvaluationErrors.ROWS_DO_NOT_FIT_TARGET({ param: "dataset_id" });
  }
  const now = clock.now();
  const id = newId("eval", now.getTime());
  return db.transaction(async (tx) => {
    const [evaluation] = await tx
      .insert(evaluations)
      .values({
        id,
        workspaceId,
        targetKind: resolved.kind,
        targetId: resolved.id,
        versionSelector: String(target.version),
        version: resolved.version,
        datasetId: dataset.id,
        evaluators: input.evaluators,
        status: "running",
        rowsTotal: rows.length,
        reason: input.reason ?? "api",
        createdAt: now,
      })
      .returning();
    if (!evaluation) throw new Error("evaluation insert returned no row");
    await tx.insert(evaluationResults).values(
      rows.map((row) => ({
        evaluationId: id,
        position: row.position,
        workspaceId,
        input: row.input,
        inputs: row.inputs,
        expected: row.expected,
        status: "pending" as const,
      })),
    );
    return evaluation;
  });
}

async function resolveTarget(
  db: BuilderDb,
  workspaceId: string,
  target: EvaluationTarget,
): Promise<{ kind: "agent" | "workflow"; id: string; version: number | null }> {
  const kind = "agent_id" in target ? "agent" : "workflow";
  const found =
    "agent_id" in target
      ? await findAgent(db, workspaceId, target.agent_id)
      : await findWorkflow(db, workspaceId, target.workflow_id);
  if (!found) throw EvaluationErrors.TARGET_NOT_FOUND({ param: `target.${kind}_id` });
  if (target.version === "draft") return { kind, id: found.id, version: null };
  if (target.version === "published") return { kind, id: found.id, version: found.publishedVersion };
  const version =
    kind === "agent"
      ? await findAgentVersion(db, workspaceId, found.id, target.version)
      : await findWorkflowVersion(db, workspaceId, found.id, target.version);
  if (!version) throw VersionErrors.VERSION_NOT_FOUND({ param: "target.version" });
  return { kind, id: found.id, version: target.version };
}
