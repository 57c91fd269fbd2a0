import { errorResponses, idParam, jsonContent, listOf } from "@app/http";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { publishVersionBody, toVersionPage, versionListQuery, versionParams } from "../versions/contract.ts";
import { VersionErrors } from "../versions/errors.ts";
import { workflowVersionSchema } from "./contract.ts";
import { WorkflowErrors } from "./errors.ts";
import { findWorkflow } from "./find-workflow.ts";
import { publishWorkflow } from "./publish-workflow.ts";
import { toWorkflowVersionJson } from "./workflow-version-json.ts";
import { findWorkflowVersion, listWorkflowVersions } from "./workflow-versions.ts";

const publishRoute = createRoute({
  method: "post",
  path: "/workflows/{id}/versions",
  tags: ["workflows"],
  summary: "Publish the workflow's draft as its next version",
  description:
    "Apps, the MCP endpoint and other outside callers then use this version; the draft stays editable.",
  request: { params: idParam, body: { required: false, content: jsonContent(publishVersionBody) } },
  responses: {
    201: { description: "The new version", content: jsonContent(workflowVersionSchema) },
    ...errorResponses(400, 401, 404, 422),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/workflows/{id}/versions",
  tags: ["workflows"],
  summary: "The workflow's published versions, newest first",
  request: { params: idParam, query: versionListQuery },
  responses: {
    200: {
      description: "A page of versions",
      content: jsonContent(listOf(workflowVersionSchema).openapi("WorkflowVersionList")),
    },
    ...errorResponses(401, 404, 422),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/workflows/{id}/versions/{version}",
  tags: ["workflows"],
  summary: "One published version of the workflow",
  request: { params: versionParams },
  responses: {
    200: { description: "The version", content: jsonContent(workflowVersionSchema) },
    ...errorResponses(401, 404, 422),
  },
});

/**
 * Adds publishing and the version history to the workflows router (`/api/workflows/{id}/versions…`).
 *
 * @example registerWorkflowVersionRoutes(router, deps);
 */
export function registerWorkflowVersionRoutes(router: OpenAPIHono<AppEnv>, deps: Deps): void {
  router.openapi(publishRoute, async (c) => {
    const principal = c.get("principal");
    const body = (c.req.valid("json") as { notes?: string } | undefined) ?? {};
    const row = await publishWorkflow(deps, principal.workspaceId, c.req.valid("param").id, {
      notes: body.notes ?? "",
      userId: principal.userId,
    });
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    return c.json(toWorkflowVersionJson(row), 201);
  });
  router.openapi(listRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const workflow = await findWorkflow(deps.db, workspaceId, c.req.valid("param").id);
    if (!workflow) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listWorkflowVersions(deps.db, workspaceId, workflow.id, query);
    return c.json(toVersionPage(rows, query.limit, toWorkflowVersionJson), 200);
  });
  router.openapi(getRoute, async (c) => {
    const { id, version } = c.req.valid("param");
    const workspaceId = c.get("principal").workspaceId;
    const row = await findWorkflowVersion(deps.db, workspaceId, id, version);
    if (!row) {
      if (!(await findWorkflow(deps.db, workspaceId, id))) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
      throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    }
    return c.json(toWorkflowVersionJson(row), 200);
  });
}
