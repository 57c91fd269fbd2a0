// Where a workflow's graph or an agent uses something of its workspace by id, and how an import
// points those uses at this workspace's things: by the caller's mapping, by the same id (the same
// install), or by a unique name of the same kind. What cannot be resolved is removed from its list,
// cleared, or (a credential) kept so the node fails clearly until one is chosen — never guessed.
import type { WorkflowGraph } from "@app/workflow";
import { and, eq, inArray } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { agents } from "../agents/schema.ts";
import { credentials } from "../credentials/schema.ts";
import type { BuilderDb } from "../db/index.ts";
import { knowledgeBases } from "../knowledge/schema.ts";
import { mcpServers } from "../mcp/schema.ts";
import { workflows } from "../workflows/schema.ts";
import type { ExportedReference, ImportReport, ReferenceKind } from "./contract.ts";

/** One use of a reference in a definition, with what an import does to it. */
export interface ReferenceSite {
  kind: ReferenceKind;
  id: string;
  path: string;
  /** Points the use at another id. */
  set(id: string): void;
  /** Takes the use away when it cannot be resolved; answers what was done. */
  unset(): "removed" | "cleared" | "kept";
}

/** Marks list entries to drop once every site is handled (dropping at once would shift indexes). */
const REMOVED = Symbol("removed");

const isLiteralId = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && !value.includes("{{");

function listSites(
  list: unknown[],
  kind: ReferenceKind,
  path: string,
  onUnset: "removed" = "removed",
): ReferenceSite[] {
  return list.flatMap((id, index) =>
    isLiteralId(id)
      ? [
          {
            kind,
            id,
            path: `${path}[${index}]`,
            set: (next: string) => {
              list[index] = next;
            },
            unset: () => {
              list[index] = REMOVED;
              return onUnset;
            },
          },
        ]
      : [],
  );
}

function fieldSite(
  holder: Record<string, unknown>,
  key: string,
  kind: ReferenceKind,
  path: string,
  onUnset: "cleared" | "kept",
): ReferenceSite[] {
  const id = holder[key];
  if (!isLiteralId(id)) return [];
  return [
    {
      kind,
      id,
      path,
      set: (next) => {
        holder[key] = next;
      },
      unset: () => {
        if (onUnset === "cleared") delete holder[key];
        return onUnset;
      },
    },
  ];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The uses of other things in a graph (which the sites change in place: pass a copy).
 *
 * @example const sites = graphReferenceSites(structuredClone(graph));
 */
export function graphReferenceSites(graph: WorkflowGraph): ReferenceSite[] {
  const sites: ReferenceSite[] = [];
  for (const [index, node] of graph.nodes.entries()) {
    const at = `graph.nodes[${index}].data`;
    if (node.type === "llm" && node.data.knowledge_base_ids) {
      sites.push(...listSites(node.data.knowledge_base_ids, "knowledge_base", `${at}.knowledge_base_ids`));
    } else if (node.type === "http" && node.data.auth && "credential_id" in node.data.auth) {
      sites.push(
        ...fieldSite(
          node.data.auth as Record<string, unknown>,
          "credential_id",
          "credential",
          `${at}.auth.credential_id`,
          "kept",
        ),
      );
    } else if (node.type === "tool") {
      const args = node.data.args;
      const tool = node.data.tool;
      if (tool === "knowledge_search" && Array.isArray(args.knowledge_base_ids)) {
        sites.push(...listSites(args.knowledge_base_ids, "knowledge_base", `${at}.args.knowledge_base_ids`));
      } else if (tool === "run_workflow") {
        sites.push(...fieldSite(args, "workflow_id", "workflow", `${at}.args.workflow_id`, "cleared"));
      } else if (tool === "run_agent") {
        sites.push(...fieldSite(args, "agent_id", "agent", `${at}.args.agent_id`, "cleared"));
      } else if (tool === "mcp_tool") {
        sites.push(...fieldSite(args, "server_id", "mcp_server", `${at}.args.server_id`, "cleared"));
      } else if (tool === "http_request" && isRecord(args.auth)) {
        sites.push(
          ...fieldSite(args.auth, "credential_id", "credential", `${at}.args.auth.credential_id`, "kept"),
        );
      }
    }
  }
  return sites;
}

/** An agent's fields that hold references (its tools and knowledge bases), as the API names them. */
export interface AgentReferenceHolder {
  tools: unknown[];
  knowledge_base_ids: unknown[];
}

/**
 * The uses of other things by an agent (changed in place: pass a copy). An agent tool whose
 * workflow or MCP server cannot be resolved is removed: it has no meaning without one.
 *
 * @example const sites = agentReferenceSites(copy);
 */
export function agentReferenceSites(agent: AgentReferenceHolder): ReferenceSite[] {
  const sites = listSites(agent.knowledge_base_ids, "knowledge_base", "knowledge_base_ids");
  for (const [index, tool] of agent.tools.entries()) {
    if (!isRecord(tool)) continue;
    const key = tool.type === "workflow" ? "workflow_id" : tool.type === "mcp" ? "server_id" : undefined;
    if (!key || !isLiteralId(tool[key])) continue;
    sites.push({
      kind: tool.type === "workflow" ? "workflow" : "mcp_server",
      id: tool[key],
      path: `tools[${index}].${key}`,
      set: (next) => {
        tool[key] = next;
      },
      unset: () => {
        agent.tools[index] = REMOVED;
        return "removed";
      },
    });
  }
  return sites;
}

/**
 * Drops the list entries that unresolved sites removed, in place.
 *
 * @example dropRemoved(graph.nodes.map(...)); dropRemoved(agent.tools)
 */
export function dropRemoved(list: unknown[]): void {
  for (let index = list.length - 1; index >= 0; index--) if (list[index] === REMOVED) list.splice(index, 1);
}

/** Drops removed entries everywhere a graph's sites may have removed some. */
export function compactGraph(graph: WorkflowGraph): void {
  for (const node of graph.nodes) {
    if (node.type === "llm" && node.data.knowledge_base_ids) dropRemoved(node.data.knowledge_base_ids);
    if (node.type === "tool" && Array.isArray(node.data.args.knowledge_base_ids))
      dropRemoved(node.data.args.knowledge_base_ids);
  }
}

interface Named {
  id: string;
  name: string;
  provider?: string;
}

const TABLES: Record<
  ReferenceKind,
  { table: PgTable; id: AnyPgColumn; workspaceId: AnyPgColumn; name: AnyPgColumn; provider?: AnyPgColumn }
> = {
  knowledge_base: {
    table: knowledgeBases,
    id: knowledgeBases.id,
    workspaceId: knowledgeBases.workspaceId,
    name: knowledgeBases.name,
  },
  credential: {
    table: credentials,
    id: credentials.id,
    workspaceId: credentials.workspaceId,
    name: credentials.name,
    provider: credentials.provider,
  },
  workflow: { table: workflows, id: workflows.id, workspaceId: workflows.workspaceId, name: workflows.name },
  agent: { table: agents, id: agents.id, workspaceId: agents.workspaceId, name: agents.name },
  mcp_server: {
    table: mcpServers,
    id: mcpServers.id,
    workspaceId: mcpServers.workspaceId,
    name: mcpServers.name,
  },
};

async function selectNamed(
  db: BuilderDb,
  kind: ReferenceKind,
  workspaceId: string,
  where: { ids: string[] } | { name: string },
): Promise<Named[]> {
  const spec = TABLES[kind];
  const rows = (await db
    .select({ id: spec.id, name: spec.name, ...(spec.provider ? { provider: spec.provider } : {}) })
    .from(spec.table)
    .where(
      and(
        eq(spec.workspaceId, workspaceId),
        "ids" in where ? inArray(spec.id, where.ids) : eq(spec.name, where.name),
      ),
    )
    .limit(1000)) as Named[];
  return rows;
}

/**
 * The references list of an export: each distinct thing the sites use, with its name here (null
 * when the workspace no longer has it), in order of first use.
 *
 * @example const references = await describeReferences(db, workspaceId, sites);
 */
export async function describeReferences(
  db: BuilderDb,
  workspaceId: string,
  sites: readonly ReferenceSite[],
): Promise<ExportedReference[]> {
  const distinct = new Map<string, { kind: ReferenceKind; id: string }>();
  for (const site of sites) distinct.set(`${site.kind}:${site.id}`, { kind: site.kind, id: site.id });
  const found = new Map<string, Named>();
  for (const kind of new Set([...distinct.values()].map((entry) => entry.kind))) {
    const ids = [...distinct.values()].filter((entry) => entry.kind === kind).map((entry) => entry.id);
    for (const row of await selectNamed(db, kind, workspaceId, { ids })) found.set(`${kind}:${row.id}`, row);
  }
  return [...distinct.entries()].map(([key, { kind, id }]) => {
    const row = found.get(key);
    return {
      kind,
      id,
      name: row?.name ?? null,
      ...(row?.provider !== undefined ? { provider: row.provider } : {}),
    };
  });
}

/** Thrown for a mapping that names nothing of the right kind in this workspace. */
export class MappingError extends Error {
  constructor(
    readonly id: string,
    message: string,
  ) {
    super(message);
  }
}

const KIND_NAMES: Record<ReferenceKind, string> = {
  knowledge_base: "knowledge base",
  credential: "credential",
  workflow: "workflow",
  agent: "agent",
  mcp_server: "MCP server",
};

/**
 * Points every site at this workspace's things and says what became of each reference. Changes the
 * sites' definition in place (then `compactGraph` or `dropRemoved` the lists).
 *
 * @example const references = await resolveReferences(db, workspaceId, sites, document.references, body.references ?? {});
 */
export async function resolveReferences(
  db: BuilderDb,
  workspaceId: string,
  sites: readonly ReferenceSite[],
  declared: readonly ExportedReference[],
  mapping: Readonly<Record<string, string | null>>,
): Promise<ImportReport["references"]> {
  const groups = new Map<string, ReferenceSite[]>();
  for (const site of sites) {
    const key = `${site.kind}:${site.id}`;
    groups.set(key, [...(groups.get(key) ?? []), site]);
  }
  const report: ImportReport["references"] = { resolved: [], unresolved: [] };
  for (const group of groups.values()) {
    const first = group[0];
    if (!first) continue;
    const { kind, id } = first;
    const declaredAs = declared.find((reference) => reference.id === id && reference.kind === kind);
    const name = declaredAs?.name ?? null;
    const paths = group.map((site) => site.path);
    const outcome = await resolveOne(db, workspaceId, { kind, id, name, declaredAs }, mapping);
    if ("resolvedId" in outcome) {
      for (const site of group) site.set(outcome.resolvedId);
      report.resolved.push({
        kind,
        id,
        name,
        resolved_id: outcome.resolvedId,
        resolved_by: outcome.by,
        paths,
      });
    } else {
      const actions = group.map((site) => site.unset());
      report.unresolved.push({
        kind,
        id,
        name,
        ...(declaredAs?.provider !== undefined ? { provider: declaredAs.provider } : {}),
        ...(declaredAs?.inline_secret ? { inline_secret: true } : {}),
        reason: outcome.reason,
        action: actions[0] ?? "cleared",
        paths,
      });
    }
  }
  return report;
}

async function resolveOne(
  db: BuilderDb,
  workspaceId: string,
  reference: {
    kind: ReferenceKind;
    id: string;
    name: string | null;
    declaredAs: ExportedReference | undefined;
  },
  mapping: Readonly<Record<string, string | null>>,
): Promise<{ resolvedId: string; by: "mapping" | "id" | "name" } | { reason: string }> {
  const { kind, id, name } = reference;
  const what = KIND_NAMES[kind];
  if (Object.hasOwn(mapping, id)) {
    const target = mapping[id];
    if (target === null || target === undefined) return { reason: "left unresolved by the request" };
    const [row] = await selectNamed(db, kind, workspaceId, { ids: [target] });
    if (!row) throw new MappingError(id, `no ${what} ${target} in this workspace`);
    return { resolvedId: row.id, by: "mapping" };
  }
  if (reference.declaredAs?.inline_secret) {
    return {
      reason: "the secret was held in the workflow and is never exported: choose a stored credential",
    };
  }
  const [same] = await selectNamed(db, kind, workspaceId, { ids: [id] });
  if (same) return { resolvedId: same.id, by: "id" };
  if (name === null) return { reason: `no ${what} with this id here, and the document gives no name` };
  const named = await selectNamed(db, kind, workspaceId, { name });
  const provider = reference.declaredAs?.provider;
  const candidates =
    provider !== undefined && named.some((row) => row.provider === provider)
      ? named.filter((row) => row.provider === provider)
      : named;
  const [only] = candidates;
  if (candidates.length === 1 && only) return { resolvedId: only.id, by: "name" };
  if (candidates.length === 0) return { reason: `no ${what} named "${name}" in this workspace` };
  return { reason: `${candidates.length} ${what}s are named "${name}" in this workspace: choose one` };
}
