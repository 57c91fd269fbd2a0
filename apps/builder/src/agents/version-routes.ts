import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { fieldChangeSchema, lineChangeSchema, toVersionPage } from "../versions/contract.ts";
import { VersionErrors } from "../versions/errors.ts";
import { passGate } from "../versions/evaluation-gate.ts";
import { etagOf, expectedRevisions, refusedWrite } from "../versions/revisions.ts";
import { versionRouteDefinitions } from "../versions/version-route-definitions.ts";
import { agentSide, diffAgents, restoreAgent } from "./agent-history.ts";
import { toAgentJson } from "./agent-json.ts";
import { toAgentVersionJson } from "./agent-version-json.ts";
import { findAgentVersion, listAgentVersions } from "./agent-versions.ts";
import { agentSchema, agentVersionSchema } from "./contract.ts";
import { AgentErrors } from "./errors.ts";
import { findAgent } from "./find-agent.ts";
import { publishAgent } from "./publish-agent.ts";

const agentDiffSchema = z
  .object({
    from: z.union([z.number().int(), z.literal("draft")]),
    to: z.union([z.number().int(), z.literal("draft")]),
    fields: z.array(fieldChangeSchema).openapi({ description: "Every field that differs, with both values" }),
    instructions: z
      .array(lineChangeSchema)
      .nullable()
      .openapi({ description: "The instructions as a line diff, when they changed" }),
    knowledge_bases: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }),
  })
  .openapi("AgentDiff");

const routes = versionRouteDefinitions({
  tag: "agents",
  noun: "agent",
  base: "/{id}",
  version: agentVersionSchema,
  diff: agentDiffSchema,
  resource: agentSchema,
  listName: "AgentVersionList",
});

/**
 * Adds publishing and the version history to the agents router (`/api/agents/{id}/versions…`).
 *
 * @example registerAgentVersionRoutes(router, deps);
 */
export function registerAgentVersionRoutes(router: OpenAPIHono<AppEnv>, deps: Deps): void {
  router.openapi(routes.publish, async (c) => {
    const principal = c.get("principal");
    const body = (c.req.valid("json") as { notes?: string; force?: boolean } | undefined) ?? {};
    const id = c.req.valid("param").id;
    const agent = await findAgent(deps.db, principal.workspaceId, id);
    if (!agent) throw AgentErrors.AGENT_NOT_FOUND();
    const gateResult = await passGate(
      deps,
      principal.workspaceId,
      { agent_id: id },
      agent.evaluationGate,
      body.force,
    );
    const row = await publishAgent(deps, principal.workspaceId, id, {
      notes: body.notes ?? "",
      userId: principal.userId,
      gateResult,
    });
    if (!row) throw AgentErrors.AGENT_NOT_FOUND();
    return c.json(toAgentVersionJson(row), 201);
  });
  router.openapi(routes.list, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const agent = await findAgent(deps.db, workspaceId, c.req.valid("param").id);
    if (!agent) throw AgentErrors.AGENT_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listAgentVersions(deps.db, workspaceId, agent.id, query);
    return c.json(toVersionPage(rows, query.limit, toAgentVersionJson), 200);
  });
  router.openapi(routes.get, async (c) => {
    const { id, version } = c.req.valid("param");
    const workspaceId = c.get("principal").workspaceId;
    const row = await findAgentVersion(deps.db, workspaceId, id, version);
    if (!row) {
      if (!(await findAgent(deps.db, workspaceId, id))) throw AgentErrors.AGENT_NOT_FOUND();
      throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    }
    return c.json(toAgentVersionJson(row), 200);
  });
  router.openapi(routes.diff, async (c) => {
    const { id, a, b } = c.req.valid("param");
    const agent = await findAgent(deps.db, c.get("principal").workspaceId, id);
    if (!agent) throw AgentErrors.AGENT_NOT_FOUND();
    const [before, after] = await Promise.all([agentSide(deps.db, agent, a), agentSide(deps.db, agent, b)]);
    if (!before) throw VersionErrors.VERSION_NOT_FOUND({ param: "a" });
    if (!after) throw VersionErrors.VERSION_NOT_FOUND({ param: "b" });
    return c.json({ from: a, to: b, ...diffAgents(before, after) }, 200);
  });
  router.openapi(routes.restore, async (c) => {
    const { id, version } = c.req.valid("param");
    const workspaceId = c.get("principal").workspaceId;
    const row = await findAgentVersion(deps.db, workspaceId, id, version);
    if (!row) {
      if (!(await findAgent(deps.db, workspaceId, id))) throw AgentErrors.AGENT_NOT_FOUND();
      throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    }
    const expected = expectedRevisions(c.req.header("if-match"));
    const restored = await restoreAgent(deps, workspaceId, id, row.snapshot, expected);
    if (!restored)
      throw await refusedWrite(() => findAgent(deps.db, workspaceId, id), AgentErrors.AGENT_NOT_FOUND);
    c.header("ETag", etagOf(restored));
    return c.json(toAgentJson(restored), 200);
  });
}
