import { errorResponses, idParam, jsonContent, listOf } from "@app/http";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { publishVersionBody, toVersionPage, versionListQuery, versionParams } from "../versions/contract.ts";
import { VersionErrors } from "../versions/errors.ts";
import { toAgentVersionJson } from "./agent-version-json.ts";
import { findAgentVersion, listAgentVersions } from "./agent-versions.ts";
import { agentVersionSchema } from "./contract.ts";
import { AgentErrors } from "./errors.ts";
import { findAgent } from "./find-agent.ts";
import { publishAgent } from "./publish-agent.ts";

const publishRoute = createRoute({
  method: "post",
  path: "/{id}/versions",
  tags: ["agents"],
  summary: "Publish the agent's draft as its next version",
  description:
    "Apps, the MCP endpoint and other outside callers then use this version; the draft stays editable.",
  request: { params: idParam, body: { required: false, content: jsonContent(publishVersionBody) } },
  responses: {
    201: { description: "The new version", content: jsonContent(agentVersionSchema) },
    ...errorResponses(400, 401, 404, 422),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/{id}/versions",
  tags: ["agents"],
  summary: "The agent's published versions, newest first",
  request: { params: idParam, query: versionListQuery },
  responses: {
    200: {
      description: "A page of versions",
      content: jsonContent(listOf(agentVersionSchema).openapi("AgentVersionList")),
    },
    ...errorResponses(401, 404, 422),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}/versions/{version}",
  tags: ["agents"],
  summary: "One published version of the agent",
  request: { params: versionParams },
  responses: {
    200: { description: "The version", content: jsonContent(agentVersionSchema) },
    ...errorResponses(401, 404, 422),
  },
});

/**
 * Adds publishing and the version history to the agents router (`/api/agents/{id}/versions…`).
 *
 * @example registerAgentVersionRoutes(router, deps);
 */
export function registerAgentVersionRoutes(router: OpenAPIHono<AppEnv>, deps: Deps): void {
  router.openapi(publishRoute, async (c) => {
    const principal = c.get("principal");
    const body = (c.req.valid("json") as { notes?: string } | undefined) ?? {};
    const row = await publishAgent(deps, principal.workspaceId, c.req.valid("param").id, {
      notes: body.notes ?? "",
      userId: principal.userId,
    });
    if (!row) throw AgentErrors.AGENT_NOT_FOUND();
    return c.json(toAgentVersionJson(row), 201);
  });
  router.openapi(listRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const agent = await findAgent(deps.db, workspaceId, c.req.valid("param").id);
    if (!agent) throw AgentErrors.AGENT_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listAgentVersions(deps.db, workspaceId, agent.id, query);
    return c.json(toVersionPage(rows, query.limit, toAgentVersionJson), 200);
  });
  router.openapi(getRoute, async (c) => {
    const { id, version } = c.req.valid("param");
    const workspaceId = c.get("principal").workspaceId;
    const row = await findAgentVersion(deps.db, workspaceId, id, version);
    if (!row) {
      if (!(await findAgent(deps.db, workspaceId, id))) throw AgentErrors.AGENT_NOT_FOUND();
      throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    }
    return c.json(toAgentVersionJson(row), 200);
  });
}
