import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { VersionListQuery } from "../versions/contract.ts";
import { type AgentRow, type AgentVersionRow, agentVersions } from "./schema.ts";

/**
 * A page of an agent's versions, newest first (`limit + 1` rows, for `toVersionPage`).
 *
 * @example const rows = await listAgentVersions(db, workspaceId, agentId, { limit: 20 });
 */
export function listAgentVersions(
  db: BuilderDb,
  workspaceId: string,
  agentId: string,
  page: VersionListQuery,
): Promise<AgentVersionRow[]> {
  return db
    .select()
    .from(agentVersions)
    .where(
      and(
        eq(agentVersions.agentId, agentId),
        eq(agentVersions.workspaceId, workspaceId),
        page.cursor === undefined ? undefined : lt(agentVersions.version, page.cursor),
      ),
    )
    .orderBy(desc(agentVersions.version))
    .limit(page.limit + 1);
}

/**
 * One version of the workspace's agent, or undefined.
 *
 * @example const row = await findAgentVersion(db, workspaceId, agentId, 2);
 */
export async function findAgentVersion(
  db: BuilderDb,
  workspaceId: string,
  agentId: string,
  version: number,
): Promise<AgentVersionRow | undefined> {
  const [row] = await db
    .select()
    .from(agentVersions)
    .where(
      and(
        eq(agentVersions.agentId, agentId),
        eq(agentVersions.version, version),
        eq(agentVersions.workspaceId, workspaceId),
      ),
    )
    .limit(1);
  return row;
}

/**
 * The agent as a version fixed it: the version's content over the agent's row (ids and settings
 * a version does not keep, such as MCP exposure, stay the agent's own).
 *
 * @example const published = agentAtVersion(agent, versionRow);
 */
export function agentAtVersion(agent: AgentRow, version: AgentVersionRow): AgentRow {
  return { ...agent, ...version.snapshot };
}
