import { createRouter, errorResponses, idParam, jsonContent, listOf, toPage } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toRatedMessageJson } from "../agents/conversation-json.ts";
import { AgentErrors } from "../agents/errors.ts";
import { findLoggedConversation, listLoggedConversations } from "../agents/log-conversations.ts";
import { listMessagesWithFeedback, rateMessage } from "../agents/message-feedback.ts";
import { findWorkspaceEndUsers } from "../apps/end-users.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { runSchema } from "../workflows/contract.ts";
import { listLoggedRuns } from "../workflows/runs/log-runs.ts";
import { runJson } from "../workflows/runs/run-json.ts";
import {
  conversationDetailSchema,
  conversationExportQuery,
  conversationLogQuery,
  loggedConversationSchema,
  runExportQuery,
  runLogQuery,
  teamFeedbackBody,
  teamFeedbackSchema,
} from "./contract.ts";
import { LogErrors } from "./errors.ts";
import { type ExportFormat, exportConversations, exportRuns } from "./export-logs.ts";
import { conversationLogFilter, runLogFilter } from "./log-filters.ts";
import { toLoggedConversationJson } from "./log-json.ts";

/** Messages the conversation view shows at once; older ones are paged at /messages. */
const DETAIL_MESSAGES = 1000;

const exportContent = {
  "application/x-ndjson": { schema: z.string().openapi({ description: "One JSON object a line" }) },
  "text/csv": { schema: z.string().openapi({ description: "UTF-8 with a byte order mark, CRLF, RFC 4180" }) },
};

const routes = {
  conversations: createRoute({
    method: "get",
    path: "/conversations",
    tags: ["logs"],
    summary:
      "Every conversation of the workspace (studio, API, apps, MCP, workflows), newest first, filtered",
    description:
      "Filters combine (all must hold) and paging (`cursor`) keeps them. Open one at GET /api/conversations/{id}.",
    request: { query: conversationLogQuery },
    responses: {
      200: {
        description: "A page of conversations",
        content: jsonContent(listOf(loggedConversationSchema).openapi("LoggedConversationList")),
      },
      ...errorResponses(401, 422),
    },
  }),
  exportConversations: createRoute({
    method: "get",
    path: "/conversations/export",
    tags: ["logs"],
    summary: "Export the messages of the conversations matching the filters: JSON lines or CSV, streamed",
    description:
      "One line or record per message, oldest first, with its conversation's agent, app, end user and source, who " +
      "answered (model or annotation), tokens, latency and both ratings. Streamed from the database a page at a time.",
    request: { query: conversationExportQuery },
    responses: {
      200: { description: "The export, as a file download", content: exportContent },
      ...errorResponses(401, 422),
    },
  }),
  conversation: createRoute({
    method: "get",
    path: "/conversations/{id}",
    tags: ["conversations"],
    summary:
      "A conversation with its messages, tool calls, citations, ratings (end user's and team's) and latency",
    request: { params: idParam },
    responses: {
      200: { description: "The conversation", content: jsonContent(conversationDetailSchema) },
      ...errorResponses(401, 404),
    },
  }),
  runs: createRoute({
    method: "get",
    path: "/runs",
    tags: ["logs"],
    summary:
      "Every workflow run of the workspace (API, triggers, schedules, apps, MCP, tools), newest first, filtered",
    description: "Filters combine and paging keeps them. Open one, with its nodes, at GET /api/runs/{id}.",
    request: { query: runLogQuery },
    responses: {
      200: {
        description: "A page of runs",
        content: jsonContent(listOf(runSchema).openapi("LoggedRunList")),
      },
      ...errorResponses(401, 422),
    },
  }),
  exportRuns: createRoute({
    method: "get",
    path: "/runs/export",
    tags: ["logs"],
    summary: "Export the runs matching the filters: JSON lines or CSV, streamed",
    description: "One line or record per run, oldest first; in CSV its inputs and outputs are JSON text.",
    request: { query: runExportQuery },
    responses: {
      200: { description: "The export, as a file download", content: exportContent },
      ...errorResponses(401, 422),
    },
  }),
  feedback: createRoute({
    method: "post",
    path: "/messages/{id}/feedback",
    tags: ["logs"],
    summary:
      "Rate an answer as the team (like or dislike, with a comment), or take the rating back with null",
    description:
      'Stored as `source: "team"` beside the end user\'s own rating (`source: "user"`); both show on the message and filter the logs.',
    request: { params: idParam, body: { required: true, content: jsonContent(teamFeedbackBody) } },
    responses: {
      200: { description: "The rating as stored", content: jsonContent(teamFeedbackSchema) },
      ...errorResponses(400, 401, 404, 422),
    },
  }),
};

function download(c: Context<AppEnv>, name: string, format: ExportFormat, body: ReadableStream<Uint8Array>) {
  const day = new Date().toISOString().slice(0, 10);
  return c.body(body, 200, {
    "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
    "content-disposition": `attachment; filename="${name}-${day}.${format}"`,
    "cache-control": "no-store",
  });
}

/**
 * The workspace's logs: every conversation and run with filters, their streamed exports, a
 * conversation's full view, and the team's ratings of answers; mounted at /api (before the
 * conversation and run routes, whose `/{id}` would otherwise take `export`).
 *
 * @example app.route("/api", logRoutes(deps));
 */
export function logRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();

  router.openapi(routes.conversations, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const query = c.req.valid("query");
    const filter = await conversationLogFilter(deps.db, workspaceId, query);
    const rows = await listLoggedConversations(deps.db, workspaceId, filter, query);
    const endUsers = await findWorkspaceEndUsers(deps.db, workspaceId, [
      ...new Set(rows.map((row) => row.endUserId).filter((id): id is string => id !== null)),
    ]);
    return c.json(
      toPage(rows, query.limit, (row) => toLoggedConversationJson(row, endUsers.get(row.endUserId ?? ""))),
      200,
    );
  });
  router.openapi(routes.exportConversations, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const query = c.req.valid("query");
    const filter = await conversationLogFilter(deps.db, workspaceId, query);
    const body = await exportConversations(deps.db, workspaceId, filter, query.format);
    return download(c, "conversations", query.format, body);
  });
  router.openapi(routes.conversation, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const conversation = await findLoggedConversation(deps.db, workspaceId, c.req.valid("param").id);
    if (!conversation) throw AgentErrors.CONVERSATION_NOT_FOUND();
    const newest = await listMessagesWithFeedback(deps.db, workspaceId, conversation.id, {
      limit: DETAIL_MESSAGES,
    });
    const endUsers = await findWorkspaceEndUsers(
      deps.db,
      workspaceId,
      conversation.endUserId ? [conversation.endUserId] : [],
    );
    return c.json(
      {
        ...toLoggedConversationJson(conversation, endUsers.get(conversation.endUserId ?? "")),
        messages: newest.slice(0, DETAIL_MESSAGES).reverse().map(toRatedMessageJson),
        has_more_messages: newest.length > DETAIL_MESSAGES,
      },
      200,
    );
  });
  router.openapi(routes.runs, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const query = c.req.valid("query");
    const filter = await runLogFilter(deps.db, workspaceId, query);
    const rows = await listLoggedRuns(deps.db, workspaceId, filter, query);
    return c.json(
      toPage(rows, query.limit, (row) => runJson(row, undefined)),
      200,
    );
  });
  router.openapi(routes.exportRuns, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const query = c.req.valid("query");
    const filter = await runLogFilter(deps.db, workspaceId, query);
    return download(c, "runs", query.format, await exportRuns(deps.db, workspaceId, filter, query.format));
  });
  router.openapi(routes.feedback, async (c) => {
    const messageId = c.req.valid("param").id;
    const body = c.req.valid("json");
    const comment = body.rating === null ? null : (body.comment ?? null);
    const isRated = await rateMessage(deps, c.get("principal").workspaceId, messageId, {
      source: "team",
      rating: body.rating,
      comment,
    });
    if (!isRated) throw LogErrors.MESSAGE_NOT_FOUND();
    return c.json({ message_id: messageId, source: "team" as const, rating: body.rating, comment }, 200);
  });
  return router;
}
