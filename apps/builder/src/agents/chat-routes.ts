import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  toPage,
} from "@app/http";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { VersionErrors } from "../versions/errors.ts";
import { answerTurn } from "./answer-turn.ts";
import {
  chatAnswerSchema,
  chatBody,
  chatEventStreamSchema,
  conversationSchema,
  messageSchema,
} from "./chat-contract.ts";
import { toConversationJson, toRatedMessageJson } from "./conversation-json.ts";
import { deleteConversation } from "./delete-conversation.ts";
import { AgentErrors } from "./errors.ts";
import { findAgent } from "./find-agent.ts";
import { findConversation } from "./find-conversation.ts";
import { findTurnContext } from "./find-turn-context.ts";
import { listConversations } from "./list-conversations.ts";
import { listMessagesWithFeedback } from "./message-feedback.ts";
import { prepareAgentTurn } from "./prepare-agent-turn.ts";

const chatRoute = createRoute({
  method: "post",
  path: "/{id}/chat",
  tags: ["agents"],
  summary: "Send a message to an agent: JSON, or Server-Sent Events with `Accept: text/event-stream`",
  request: { params: idParam, body: { required: true, content: jsonContent(chatBody) } },
  responses: {
    200: {
      description: "The agent's answer (JSON), or its events as they happen (SSE)",
      content: { ...jsonContent(chatAnswerSchema), "text/event-stream": { schema: chatEventStreamSchema } },
    },
    // 402: out of credits (with BILLING_ENFORCE=1), before the model is called.
    ...errorResponses(400, 401, 402, 404, 413, 422, 424, 429, 502, 504),
  },
});

const listConversationsRoute = createRoute({
  method: "get",
  path: "/{id}/conversations",
  tags: ["conversations"],
  summary: "An agent's conversations, newest first",
  request: { params: idParam, query: listQuerySchema },
  responses: {
    200: {
      description: "A page of conversations",
      content: jsonContent(listOf(conversationSchema).openapi("ConversationList")),
    },
    ...errorResponses(401, 404, 422),
  },
});

/**
 * Adds chat and the agent's conversation list to the agents router (`/api/agents/{id}/…`).
 *
 * @example registerChatRoutes(router, deps);
 */
export function registerChatRoutes(router: OpenAPIHono<AppEnv>, deps: Deps): void {
  router.openapi(chatRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const body = c.req.valid("json");
    const context = await findTurnContext(deps.db, workspaceId, {
      agentId: c.req.valid("param").id,
      conversationId: body.conversation_id,
      version: body.version,
    });
    if (!context) throw AgentErrors.AGENT_NOT_FOUND();
    if (context === "version_not_found") throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    // A signed-in person chats from the studio; a key is a program calling the API.
    const source = c.get("principal").via === "session" ? "studio" : "api";
    const prepared = await prepareAgentTurn(deps, workspaceId, context, body, 0, { source });
    return answerTurn(c, deps, prepared);
  });

  router.openapi(listConversationsRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const agent = await findAgent(deps.db, workspaceId, c.req.valid("param").id);
    if (!agent) throw AgentErrors.AGENT_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listConversations(deps.db, workspaceId, agent.id, query);
    return c.json(toPage(rows, query.limit, toConversationJson), 200);
  });
}

const listMessagesRoute = createRoute({
  method: "get",
  path: "/{id}/messages",
  tags: ["conversations"],
  summary: "A conversation's messages, newest first",
  request: { params: idParam, query: listQuerySchema },
  responses: {
    200: {
      description: "A page of messages",
      content: jsonContent(listOf(messageSchema).openapi("MessageList")),
    },
    ...errorResponses(401, 404, 422),
  },
});

const deleteConversationRoute = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["conversations"],
  summary: "Delete a conversation and its messages",
  request: { params: idParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
});

/**
 * `/api/conversations/{id}`: page a conversation's messages, or delete it (the logs feature answers
 * the conversation itself, with its newest messages).
 *
 * @example app.route("/api/conversations", conversationRoutes(deps));
 */
export function conversationRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(listMessagesRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const conversation = await findConversation(deps.db, workspaceId, c.req.valid("param").id);
    if (!conversation) throw AgentErrors.CONVERSATION_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listMessagesWithFeedback(deps.db, workspaceId, conversation.id, query);
    return c.json(toPage(rows, query.limit, toRatedMessageJson), 200);
  });
  router.openapi(deleteConversationRoute, async (c) => {
    const isDeleted = await deleteConversation(
      deps.db,
      c.get("principal").workspaceId,
      c.req.valid("param").id,
    );
    if (!isDeleted) throw AgentErrors.CONVERSATION_NOT_FOUND();
    return c.body(null, 204);
  });
  return router;
}
