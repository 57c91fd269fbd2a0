import { createRouter, listOf, resourceRoutes, searchableListQuerySchema, toPage } from "@app/http";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { registerAgentPortabilityRoutes } from "../portability/routes.ts";
import { etagOf, expectedRevisions, ifMatchHeaders, refusedWrite } from "../versions/revisions.ts";
import { toAgentJson } from "./agent-json.ts";
import { registerChatRoutes } from "./chat-routes.ts";
import { checkAgentReferences } from "./check-agent-references.ts";
import { agentSchema, createAgentBody, updateAgentBody } from "./contract.ts";
import { createAgent } from "./create-agent.ts";
import { deleteAgent } from "./delete-agent.ts";
import { AgentErrors } from "./errors.ts";
import { findAgent } from "./find-agent.ts";
import { listAgents } from "./list-agents.ts";
import { updateAgent } from "./update-agent.ts";
import { registerAgentVersionRoutes } from "./version-routes.ts";

const routes = resourceRoutes({ tag: "agents", schema: agentSchema });

const listRoute = routes.list({
  summary: "List the caller's agents, newest first",
  description: "A page of agents",
  query: searchableListQuerySchema,
  page: listOf(agentSchema).openapi("AgentList"),
});

const createAgentRoute = routes.create({
  summary: "Create an agent bound to a provider",
  description: "Created",
  body: createAgentBody,
  errors: [400, 401, 413, 422],
});

const getRoute = routes.get({ summary: "Get an agent", description: "The agent" });

const updateRoute = routes.update({
  summary: "Change some of an agent's fields",
  description: "The updated agent",
  body: updateAgentBody,
  errors: [400, 401, 404, 412, 422],
  headers: ifMatchHeaders,
});

const deleteRoute = routes.delete({ summary: "Delete an agent" });

export function agentRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  // Before `/{id}`'s routes, so `/import` is never read as an agent's id.
  registerAgentPortabilityRoutes(router, deps);
  router.openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listAgents(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toAgentJson), 200);
  });
  router.openapi(createAgentRoute, async (c) => {
    const input = c.req.valid("json");
    await checkAgentReferences(deps, c.get("principal").workspaceId, input);
    const row = await createAgent(deps, c.get("principal").workspaceId, input);
    if (row.mcpExposed) deps.mcpExposure?.changed(row.workspaceId);
    c.header("ETag", etagOf(row));
    return c.json(toAgentJson(row), 201);
  });
  router.openapi(getRoute, async (c) => {
    const row = await findAgent(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw AgentErrors.AGENT_NOT_FOUND();
    c.header("ETag", etagOf(row));
    return c.json(toAgentJson(row), 200);
  });
  router.openapi(updateRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await checkAgentReferences(deps, c.get("principal").workspaceId, body);
    const workspaceId = c.get("principal").workspaceId;
    const row = await updateAgent(deps, workspaceId, id, body, expectedRevisions(c.req.header("if-match")));
    if (!row)
      throw await refusedWrite(() => findAgent(deps.db, workspaceId, id), AgentErrors.AGENT_NOT_FOUND);
    c.header("ETag", etagOf(row));
    if (row.mcpExposed || body.mcp_exposed !== undefined) deps.mcpExposure?.changed(row.workspaceId);
    return c.json(toAgentJson(row), 200);
  });
  router.openapi(deleteRoute, async (c) => {
    const isDeleted = await deleteAgent(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw AgentErrors.AGENT_NOT_FOUND();
    deps.mcpExposure?.changed(c.get("principal").workspaceId);
    return c.body(null, 204);
  });
  registerChatRoutes(router, deps);
  registerAgentVersionRoutes(router, deps);
  return router;
}
