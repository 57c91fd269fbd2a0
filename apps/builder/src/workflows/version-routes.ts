import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { fieldChangeSchema, toVersionPage } from "../versions/contract.ts";
import { VersionErrors } from "../versions/errors.ts";
import { passGate } from "../versions/evaluation-gate.ts";
import { etagOf, expectedRevisions, refusedWrite } from "../versions/revisions.ts";
import { versionRouteDefinitions } from "../versions/version-route-definitions.ts";
import { workflowSchema, workflowVersionSchema } from "./contract.ts";
import { WorkflowErrors } from "./errors.ts";
import { findWorkflow } from "./find-workflow.ts";
import { publishWorkflow } from "./publish-workflow.ts";
import { diffWorkflows, restoreWorkflow, workflowSide } from "./workflow-history.ts";
import { toWorkflowJson } from "./workflow-json.ts";
import { toWorkflowVersionJson } from "./workflow-version-json.ts";
import { findWorkflowVersion, listWorkflowVersions } from "./workflow-versions.ts";

const workflowDiffSchema = z
  .object({
    from: z.union([z.number().int(), z.literal("draft")]),
    to: z.union([z.number().int(), z.literal("draft")]),
    fields: z.array(fieldChangeSchema).openapi({ description: "Name and description, when they differ" }),
    nodes: z.object({
      added: z.array(z.unknown()),
      removed: z.array(z.unknown()),
      changed: z.array(z.object({ id: z.string(), changes: z.array(fieldChangeSchema) })),
    }),
    edges: z.object({
      added: z.array(z.unknown()),
      removed: z.array(z.unknown()),
      changed: z.array(z.object({ id: z.string(), changes: z.array(fieldChangeSchema) })),
    }),
  })
  .openapi("WorkflowDiff");

const routes = versionRouteDefinitions({
  tag: "workflows",
  noun: "workflow",
  base: "/workflows/{id}",
  version: workflowVersionSchema,
  diff: workflowDiffSchema,
  resource: workflowSchema,
  listName: "WorkflowVersionList",
});

/**
 * Adds publishing and the version history to the workflows router (`/api/workflows/{id}/versions…`).
 *
 * @example registerWorkflowVersionRoutes(router, deps);
 */
export function registerWorkflowVersionRoutes(router: OpenAPIHono<AppEnv>, deps: Deps): void {
  const urls = { publicUrl: deps.config.publicUrl, secretKey: deps.config.secretKey };
  router.openapi(routes.publish, async (c) => {
    const principal = c.get("principal");
    const body = (c.req.valid("json") as { notes?: string; force?: boolean } | undefined) ?? {};
    const id = c.req.valid("param").id;
    const workflow = await findWorkflow(deps.db, principal.workspaceId, id);
    if (!workflow) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    const gateResult = await passGate(
      deps,
      principal.workspaceId,
      { workflow_id: id },
      workflow.evaluationGate,
      body.force,
    );
    const row = await publishWorkflow(deps, principal.workspaceId, id, {
      notes: body.notes ?? "",
      userId: principal.userId,
      gateResult,
    });
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    return c.json(toWorkflowVersionJson(row), 201);
  });
  router.openapi(routes.list, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const workflow = await findWorkflow(deps.db, workspaceId, c.req.valid("param").id);
    if (!workflow) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listWorkflowVersions(deps.db, workspaceId, workflow.id, query);
    return c.json(toVersionPage(rows, query.limit, toWorkflowVersionJson), 200);
  });
  router.openapi(routes.get, async (c) => {
    const { id, version } = c.req.valid("param");
    const workspaceId = c.get("principal").workspaceId;
    const row = await findWorkflowVersion(deps.db, workspaceId, id, version);
    if (!row) {
      if (!(await findWorkflow(deps.db, workspaceId, id))) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
      throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    }
    return c.json(toWorkflowVersionJson(row), 200);
  });
  router.openapi(routes.diff, async (c) => {
    const { id, a, b } = c.req.valid("param");
    const workflow = await findWorkflow(deps.db, c.get("principal").workspaceId, id);
    if (!workflow) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    const [before, after] = await Promise.all([
      workflowSide(deps.db, workflow, a),
      workflowSide(deps.db, workflow, b),
    ]);
    if (!before) throw VersionErrors.VERSION_NOT_FOUND({ param: "a" });
    if (!after) throw VersionErrors.VERSION_NOT_FOUND({ param: "b" });
    return c.json({ from: a, to: b, ...diffWorkflows(before, after) }, 200);
  });
  router.openapi(routes.restore, async (c) => {
    const { id, version } = c.req.valid("param");
    const workspaceId = c.get("principal").workspaceId;
    const row = await findWorkflowVersion(deps.db, workspaceId, id, version);
    if (!row) {
      if (!(await findWorkflow(deps.db, workspaceId, id))) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
      throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    }
    const expected = expectedRevisions(c.req.header("if-match"));
    const restored = await restoreWorkflow(deps, workspaceId, id, row, expected);
    if (!restored) {
      throw await refusedWrite(
        () => findWorkflow(deps.db, workspaceId, id),
        WorkflowErrors.WORKFLOW_NOT_FOUND,
      );
    }
    c.header("ETag", etagOf(restored));
    return c.json(toWorkflowJson(restored, urls), 200);
  });
}
