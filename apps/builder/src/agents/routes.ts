import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  toPage,
} from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
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

const listRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["agents"],
  summary: "List the caller's agents, newest first",
  request: { query: listQuerySchema },
  responses: {
    200: { description: "A page of agents", content: jsonContent(listOf(agentSchema).openapi("AgentList")) },
    ...errorResponses(401, 422),
  },
});

const createAgentRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["agents"],
  summary: "Create an agent bound to a provider",
  request: { body: { required: true, content: jsonContent(createAgentBody) } },
  responses: {
    201: { description: "Created", content: jsonContent(agentSchema) },
    ...errorResponses(400, 401, 413, 422),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["agents"],
  summary: "Get an agent",
  request: { params: idParam },
  responses: {
    200: { description: "The agent", content: jsonContent(agentSchema) },
    ...errorResponses(401, 404),
  },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/{id}",
  tags: ["agents"],
  summary: "Change some of an agent's fields",
  request: { params: idParam, body: { required: true, content: jsonContent(updateAgentBody) } },
  responses: {
    200: { description: "The updated agent", content: jsonContent(agentSchema) },
    ...errorResponses(400, 401, 404, 422),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["agents"],
  summary: "Delete an agent",
  request: { params: idParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
});

export function agentRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
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
    return c.json(toAgentJson(row), 201);
  });
  router.openapi(getRoute, async (c) => {
    const row = await findAgent(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw AgentErrors.AGENT_NOT_FOUND();
    return c.json(toAgentJson(row), 200);
  });
  router.openapi(updateRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await checkAgentReferences(deps, c.get("principal").workspaceId, body);
    const row = await updateAgent(deps, c.get("principal").workspaceId, id, body);
    if (!row) throw AgentErrors.AGENT_NOT_FOUND();
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
  return router;
}
