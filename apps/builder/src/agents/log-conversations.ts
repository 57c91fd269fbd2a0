import { containsPattern, newestFirst, type PageRequest, queryRows } from "@app/db";
import { and, eq, exists, gte, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import {
  type ConversationRow,
  type ConversationSource,
  conversations,
  type MessageFeedbackRow,
  messageFeedback,
  messages,
} from "./schema.ts";

/** Which conversations the workspace's logs show (every field narrows; absent ones do not). */
export interface ConversationLogFilter {
  agentId?: string | undefined;
  appId?: string | undefined;
  /** An agent version, or `draft` for turns of the unpublished agent. */
  version?: number | "draft" | undefined;
  /** The app end users meant (already resolved from an id or the host site's own id); [] matches none. */
  endUserIds?: string[] | undefined;
  source?: ConversationSource | undefined;
  /** `answered`: at least one answer stored; `unanswered`: none (every turn failed or was cut off). */
  status?: "answered" | "unanswered" | undefined;
  /** Holding an answer rated so (`any`: rated at all), by `feedbackSource` or by anyone. */
  feedback?: "like" | "dislike" | "any" | undefined;
  feedbackSource?: MessageFeedbackRow["source"] | undefined;
  /** Holding a message answered by an annotation (true) or none (false). */
  annotated?: boolean | undefined;
  /** Started at or after `from`, before `to`. */
  from?: Date | undefined;
  to?: Date | undefined;
  /** Holding a message that contains this text (case-insensitive). */
  q?: string | undefined;
}

/** A conversation as the logs list it: its row and what its messages add up to. */
export interface LoggedConversation extends ConversationRow {
  messageCount: number;
  likes: number;
  dislikes: number;
  lastMessageAt: Date | null;
}

/**
 * The filter as conditions on `conversations` (the list and the export share them). Every one is
 * a column of the conversation or an EXISTS over its own messages, so each page reads only its rows.
 */
function conditions(workspaceId: string, filter: ConversationLogFilter): SQL | undefined {
  const ownMessages = eq(messages.conversationId, conversations.id);
  // Message by message, each rating by its key: a plan that needs no statistics to be cheap.
  const rated = (rating: "like" | "dislike" | undefined) =>
    exists(
      sql`(select 1 from ${messages} where ${ownMessages} and exists (select 1 from ${messageFeedback}
        where ${messageFeedback.messageId} = ${messages.id}
        ${rating ? sql`and ${messageFeedback.rating} = ${rating}` : sql``}
        ${filter.feedbackSource ? sql`and ${messageFeedback.source} = ${filter.feedbackSource}` : sql``}))`,
    );
  const holding = (condition: SQL) =>
    exists(sql`(select 1 from ${messages} where ${ownMessages} and ${condition})`);
  return and(
    eq(conversations.workspaceId, workspaceId),
    filter.agentId === undefined ? undefined : eq(conversations.agentId, filter.agentId),
    filter.appId === undefined ? undefined : eq(conversations.appId, filter.appId),
    filter.version === undefined
      ? undefined
      : filter.version === "draft"
        ? isNull(conversations.version)
        : eq(conversations.version, filter.version),
    filter.endUserIds === undefined
      ? undefined
      : filter.endUserIds.length === 0
        ? sql`false`
        : inArray(conversations.endUserId, filter.endUserIds),
    filter.source === undefined ? undefined : eq(conversations.source, filter.source),
    filter.status === undefined
      ? undefined
      : filter.status === "answered"
        ? holding(sql`${messages.role} = 'assistant'`)
        : sql`not ${holding(sql`${messages.role} = 'assistant'`)}`,
    filter.feedback === undefined
      ? undefined
      : rated(filter.feedback === "any" ? undefined : filter.feedback),
    filter.annotated === undefined
      ? undefined
      : filter.annotated
        ? holding(sql`${messages.source} = 'annotation'`)
        : sql`not ${holding(sql`${messages.source} = 'annotation'`)}`,
    filter.from === undefined ? undefined : gte(conversations.createdAt, filter.from),
    filter.to === undefined ? undefined : lt(conversations.createdAt, filter.to),
    filter.q ? holding(sql`${messages.content} ilike ${containsPattern(filter.q)}`) : undefined,
  );
}

/** A conversation's row with its message count, ratings and last message time. */
function loggedConversationQuery(db: BuilderDb, where: SQL | undefined) {
  return db
    .select({
      conversation: conversations,
      // Written out: drizzle leaves a selected column unqualified, which inside these subqueries
      // would name the subquery's own table.
      messageCount: sql<number>`(select count(*) from messages mc where mc.conversation_id = conversations.id)::int`,
      lastMessageAt: sql<string | null>`(select max(ml.created_at) from messages ml
        where ml.conversation_id = conversations.id)`,
      ratings: sql<{ likes: number; dislikes: number }>`(select json_build_object(
          'likes', count(*) filter (where f.rating = 'like'), 'dislikes', count(*) filter (where f.rating = 'dislike'))
        from message_feedback f join messages mf on mf.id = f.message_id where mf.conversation_id = conversations.id)`,
    })
    .from(conversations)
    .where(where);
}

function toLogged(row: Awaited<ReturnType<typeof loggedConversationQuery>>[number]): LoggedConversation {
  return {
    ...row.conversation,
    messageCount: row.messageCount,
    likes: Number(row.ratings.likes),
    dislikes: Number(row.ratings.dislikes),
    lastMessageAt: row.lastMessageAt === null ? null : new Date(row.lastMessageAt),
  };
}

/**
 * The workspace's conversations matching `filter`, newest first (`limit + 1` rows), each with its
 * message count, ratings and last message time.
 *
 * @example const rows = await listLoggedConversations(db, workspaceId, { feedback: "dislike" }, { limit: 20 });
 */
export async function listLoggedConversations(
  db: BuilderDb,
  workspaceId: string,
  filter: ConversationLogFilter,
  page: PageRequest,
): Promise<LoggedConversation[]> {
  const newest = newestFirst(conversations.id, page);
  const rows = await loggedConversationQuery(db, and(conditions(workspaceId, filter), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
  return rows.map(toLogged);
}

/**
 * One of the workspace's conversations as the logs show it, or undefined.
 *
 * @example const conversation = await findLoggedConversation(db, workspaceId, "conv_…");
 */
export async function findLoggedConversation(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<LoggedConversation | undefined> {
  const [row] = await loggedConversationQuery(
    db,
    and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)),
  ).limit(1);
  return row ? toLogged(row) : undefined;
}

/** A message of an export, with its conversation's fields and both ratings, as the statement answers it. */
export interface ExportedMessage {
  id: string;
  conversation_id: string;
  agent_id: string;
  app_id: string | null;
  end_user_id: string | null;
  conversation_source: ConversationSource;
  title: string;
  role: "user" | "assistant";
  content: string;
  tool_calls: { name: string }[];
  source: string | null;
  annotation_id: string | null;
  annotation_similarity: number | null;
  provider: string | null;
  model: string | null;
  version: number | null;
  finish_reason: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number | null;
  created_at: string;
  user_feedback: { rating: "like" | "dislike"; comment: string | null } | null;
  team_feedback: { rating: "like" | "dislike"; comment: string | null } | null;
}

/** A page of an export: the matching messages, and where the next page starts (undefined at the end). */
export interface ExportPage<Row> {
  rows: Row[];
  after: string | undefined;
}

/**
 * One page of an export of the messages of the conversations matching `filter`, oldest first: the
 * next `limit` messages of the workspace after the message `after` are read as one index range and
 * those whose conversation matches are answered, with `after` set to the last message read. Every
 * join is per message (a lateral read of its conversation by id, its ratings by key), so a page costs
 * the same at the start of a million messages as at the end, and whatever the filter.
 *
 * @example const { rows, after } = await exportMessagesPage(db, workspaceId, { feedback: "dislike" }, undefined, 1000);
 */
export async function exportMessagesPage(
  db: BuilderDb,
  workspaceId: string,
  filter: ConversationLogFilter,
  after: string | undefined,
  limit: number,
): Promise<ExportPage<ExportedMessage>> {
  // The page's conversations are matched once each, not once per message.
  const rows = await queryRows<ExportedMessage & { matched: boolean }>(
    db,
    sql`with page as (select * from ${messages} where ${messages.workspaceId} = ${workspaceId}
          ${after === undefined ? sql`` : sql`and ${messages.id} > ${after}`}
          order by ${messages.id} limit ${limit}),
        -- Each of the page's conversations looked up by its id (LIMIT keeps the lateral a lookup: joined
        -- flat, the planner hashed every conversation of the workspace on every page).
        matched as (select c.* from (select distinct conversation_id from page) p
          join lateral (select ${conversations.id} as id, ${conversations.agentId} as agent_id,
              ${conversations.appId} as app_id, ${conversations.endUserId} as end_user_id,
              ${conversations.source} as source, ${conversations.title} as title
            from ${conversations}
            where ${conversations.id} = p.conversation_id and ${conditions(workspaceId, filter) ?? sql`true`}
            limit 1) c on true)
      select m.id, c.id is not null as matched, m.conversation_id, c.agent_id, c.app_id, c.end_user_id,
        c.source as conversation_source, c.title, m.role,
        case when c.id is not null then m.content end as content,
        case when c.id is not null then m.tool_calls end as tool_calls,
        m.source, m.annotation_id, m.annotation_similarity, m.provider, m.model, m.version, m.finish_reason,
        m.input_tokens, m.output_tokens, m.latency_ms,
        to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
        (select json_build_object('rating', f.rating, 'comment', f.comment) from ${messageFeedback} f
          where c.id is not null and f.message_id = m.id and f.source = 'user') as user_feedback,
        (select json_build_object('rating', f.rating, 'comment', f.comment) from ${messageFeedback} f
          where c.id is not null and f.message_id = m.id and f.source = 'team') as team_feedback
      from page m left join matched c on c.id = m.conversation_id
      order by m.id`,
  );
  return {
    rows: rows.filter((row) => row.matched),
    after: rows.length < limit ? undefined : rows.at(-1)?.id,
  };
}
