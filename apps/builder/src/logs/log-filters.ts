import type { ConversationLogFilter } from "../agents/log-conversations.ts";
import { findEndUserIds } from "../apps/end-users.ts";
import type { BuilderDb } from "../db/index.ts";
import type { RunLogFilter } from "../workflows/runs/log-runs.ts";
import { type ConversationLogQuery, instantOf, type RunLogQuery } from "./contract.ts";

type SharedQuery = Pick<ConversationLogQuery, "app_id" | "version" | "end_user" | "from" | "to" | "q">;

async function sharedFilter(db: BuilderDb, workspaceId: string, query: SharedQuery) {
  return {
    appId: query.app_id,
    version:
      query.version === undefined ? undefined : query.version === "draft" ? "draft" : Number(query.version),
    endUserIds:
      query.end_user === undefined
        ? undefined
        : await findEndUserIds(db, workspaceId, query.end_user, query.app_id),
    from: query.from === undefined ? undefined : instantOf(query.from),
    to: query.to === undefined ? undefined : instantOf(query.to),
    q: query.q,
  } as const;
}

/**
 * The conversations filter a query asks for; `end_user` is looked up among the workspace's end users
 * (by their id or the host site's own id).
 *
 * @example const filter = await conversationLogFilter(db, workspaceId, c.req.valid("query"));
 */
export async function conversationLogFilter(
  db: BuilderDb,
  workspaceId: string,
  query: Omit<ConversationLogQuery, "format">,
): Promise<ConversationLogFilter> {
  return {
    ...(await sharedFilter(db, workspaceId, query)),
    agentId: query.agent_id,
    source: query.source,
    status: query.status,
    feedback: query.feedback,
    feedbackSource: query.feedback_source,
    annotated: query.annotated === undefined ? undefined : query.annotated === "true",
  };
}

/**
 * The runs filter a query asks for.
 *
 * @example const filter = await runLogFilter(db, workspaceId, c.req.valid("query"));
 */
export async function runLogFilter(
  db: BuilderDb,
  workspaceId: string,
  query: Omit<RunLogQuery, "format">,
): Promise<RunLogFilter> {
  return {
    ...(await sharedFilter(db, workspaceId, query)),
    workflowId: query.workflow_id,
    status: query.status,
    trigger: query.trigger,
  };
}
