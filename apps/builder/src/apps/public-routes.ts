import { writeTogether } from "@app/db";
import { type BaseVariables, createRouter, errorResponses, jsonContent, listOf, toPage } from "@app/http";
import type { RunResult } from "@app/workflow";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { answerTurn, type TurnView } from "../agents/answer-turn.ts";
import { findEndUserConversation, listAppConversations } from "../agents/app-conversations.ts";
import { chatEventStreamSchema } from "../agents/chat-contract.ts";
import { toMessageJson } from "../agents/conversation-json.ts";
import { findTurnContext } from "../agents/find-turn-context.ts";
import { listMessagesWithFeedback, rateMessage } from "../agents/message-feedback.ts";
import { prepareAgentTurn } from "../agents/prepare-agent-turn.ts";
import { consumeRateLimit } from "../auth/rate-limit.ts";
import { requireCredits } from "../billing/meter.ts";
import { priceOfModelCall } from "../billing/price-table.ts";
import type { Deps } from "../deps.ts";
import { withSignedFileUrls } from "../files/signed-file-url.ts";
import { answerRun } from "../workflows/answer-run.ts";
import { checkRunnable } from "../workflows/check-runnable.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import type { RunStreamEvent, WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import type { WorkflowRow } from "../workflows/schema.ts";
import { workflowToRun } from "../workflows/workflow-versions.ts";
import { isOriginAllowed } from "./allowed-origin.ts";
import { authenticateEndUser } from "./authenticate-end-user.ts";
import { endUserUsageWrite, enforceEndUserLimits } from "./end-user-limits.ts";
import { issueAnonymousToken } from "./end-user-tokens.ts";
import { resolveEndUser } from "./end-users.ts";
import { AppErrors } from "./errors.ts";
import { findAppBySlug } from "./manage-apps.ts";
import {
  endUserSessionSchema,
  feedbackBody,
  feedbackSchema,
  publicAppSchema,
  publicChatBody,
  publicConversationSchema,
  publicListQuery,
  publicMessageSchema,
  publicRunBody,
  publicRunSchema,
  slugAndIdParams,
  slugParam,
} from "./public-contract.ts";
import type { AppRow } from "./schema.ts";

type PublicEnv = { Variables: BaseVariables & { app: AppRow } };

/** New anonymous end users an address may start per app and minute: enough for a page's visitors. */
const SESSIONS_PER_MINUTE = 60;

const endUserSecurity = [{ endUserToken: [] }];
const tags = ["public apps"];

const routes = {
  app: createRoute({
    method: "get",
    path: "/{slug}",
    tags,
    summary: "What a page needs to show the app: title, theme, starter prompts, a workflow's inputs",
    security: [],
    request: { params: slugParam },
    responses: {
      200: { description: "The app", content: jsonContent(publicAppSchema) },
      ...errorResponses(403, 404),
    },
  }),
  session: createRoute({
    method: "post",
    path: "/{slug}/session",
    tags,
    summary: "Start an anonymous end user: a token the browser keeps and sends as a bearer token",
    security: [],
    request: { params: slugParam },
    responses: {
      201: { description: "The new end user's token", content: jsonContent(endUserSessionSchema) },
      ...errorResponses(403, 404, 429),
    },
  }),
  chat: createRoute({
    method: "post",
    path: "/{slug}/chat",
    tags,
    summary: "Send a message to an agent app: JSON, or Server-Sent Events with `Accept: text/event-stream`",
    description:
      "The events are the agent chat's (`conversation`, `text_delta`, `tool_call`, `tool_result`, `finish`, `error`), with tool inputs and outputs left out.",
    security: endUserSecurity,
    request: { params: slugParam, body: { required: true, content: jsonContent(publicChatBody) } },
    responses: {
      200: {
        description: "The answer (JSON), or its events as they happen (SSE)",
        content: {
          ...jsonContent(
            z
              .object({ conversation_id: z.string(), message: publicMessageSchema })
              .openapi("PublicChatAnswer"),
          ),
          "text/event-stream": { schema: chatEventStreamSchema },
        },
      },
      ...errorResponses(401, 402, 403, 404, 424, 429, 502, 504),
    },
  }),
  conversations: createRoute({
    method: "get",
    path: "/{slug}/conversations",
    tags,
    summary: "The end user's own conversations, newest first",
    security: endUserSecurity,
    request: { params: slugParam, query: publicListQuery },
    responses: {
      200: {
        description: "A page of conversations",
        content: jsonContent(listOf(publicConversationSchema).openapi("PublicConversationList")),
      },
      ...errorResponses(401, 403, 404),
    },
  }),
  messages: createRoute({
    method: "get",
    path: "/{slug}/conversations/{id}/messages",
    tags,
    summary: "A conversation's messages, newest first, with the end user's ratings",
    security: endUserSecurity,
    request: { params: slugAndIdParams, query: publicListQuery },
    responses: {
      200: {
        description: "A page of messages",
        content: jsonContent(listOf(publicMessageSchema).openapi("PublicMessageList")),
      },
      ...errorResponses(401, 403, 404),
    },
  }),
  feedback: createRoute({
    method: "post",
    path: "/{slug}/messages/{id}/feedback",
    tags,
    summary: "Rate an answer (like or dislike, with a comment), or take the rating back with null",
    security: endUserSecurity,
    request: { params: slugAndIdParams, body: { required: true, content: jsonContent(feedbackBody) } },
    responses: {
      200: { description: "The rating as stored", content: jsonContent(feedbackSchema) },
      ...errorResponses(401, 403, 404),
    },
  }),
  run: createRoute({
    method: "post",
    path: "/{slug}/runs",
    tags,
    summary: "Run a workflow app: the finished run (JSON), or its events (SSE)",
    description:
      "Events: `run_started`, `node_started`, `node_finished` and `node_skipped` (node id, type and status only), `run_finished` (outputs or error).",
    security: endUserSecurity,
    request: { params: slugParam, body: { required: false, content: jsonContent(publicRunBody) } },
    responses: {
      200: {
        description: "The finished run, or an event stream",
        content: { ...jsonContent(publicRunSchema), "text/event-stream": { schema: z.string() } },
      },
      ...errorResponses(401, 402, 403, 404, 422, 429),
    },
  }),
};

/**
 * The app at `{slug}`, refused to a page on an origin it does not allow; answers CORS for the
 * origins it does (preflights included), so a host page's script can call the API directly.
 */
function publicApp(deps: Deps): MiddlewareHandler<PublicEnv> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const app = await findAppBySlug(deps.db, c.req.param("slug") ?? "");
    if (origin) {
      // Even a refusal is readable by the page, so the widget can say why it does not work.
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Vary", "Origin");
      c.header("Access-Control-Expose-Headers", "Retry-After, Request-Id");
    }
    if (!app) throw AppErrors.APP_NOT_FOUND({ message: "No app at this address." });
    if (!isOriginAllowed(app, origin, deps.config.publicUrl)) throw AppErrors.ORIGIN_NOT_ALLOWED();
    if (c.req.method === "OPTIONS") {
      c.header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      c.header("Access-Control-Allow-Headers", "authorization, content-type, x-end-user");
      c.header("Access-Control-Max-Age", "600");
      return c.body(null, 204);
    }
    c.set("app", app);
    await next();
  };
}

/** The public chat shows no tool inputs or outputs: they may hold what only the team should see. */
const publicTurnView: TurnView = {
  answer: (result) => ({
    conversation_id: result.conversation_id,
    message: { ...publicMessage(result.message), feedback: null },
  }),
  event: (event) => {
    if (event.event === "tool_call") return { ...event, data: { ...event.data, input: null } };
    if (event.event === "tool_result") return { ...event, data: { ...event.data, output: null } };
    return event;
  },
};

function publicMessage(message: {
  id: string;
  conversation_id: string;
  role: "user" | "assistant";
  content: string;
  citations: z.infer<typeof publicMessageSchema>["citations"];
  created_at: string;
}) {
  return {
    id: message.id,
    conversation_id: message.conversation_id,
    role: message.role,
    content: message.content,
    citations: message.citations,
    created_at: message.created_at,
  };
}

/** Node events tell an end user which step runs, not what it read or wrote. */
function publicRunEvent(deps: Deps, event: RunStreamEvent): RunStreamEvent | null {
  if (event.event === "run_started") return event;
  if (event.event === "run_finished") {
    return {
      event: event.event,
      data: { ...event.data, outputs: withSignedFileUrls(deps.config, event.data.outputs, deps.clock.now()) },
    };
  }
  const { node_id, node_type, status } = event.data;
  return { event: event.event, data: { node_id, node_type, status } };
}

/** A run as an end user sees it: links to generated files signed, since they cannot sign in. */
function publicRun(deps: Deps, result: RunResult) {
  return {
    id: result.run_id,
    status: result.status,
    outputs: withSignedFileUrls(deps.config, result.outputs, deps.clock.now()),
    error: result.error ? { code: result.error.code, message: result.error.message } : null,
    started_at: result.started_at.toISOString(),
    finished_at: result.finished_at.toISOString(),
    elapsed_ms: Math.round(result.elapsed_ms),
  };
}

/** What a run's model calls cost, priced as the meter priced them (from each LLM node's model). */
function runSpending(deps: Deps, workflow: WorkflowRow, result: RunResult) {
  const spent = { credits: 0, inputTokens: 0, outputTokens: 0 };
  for (const node of result.nodes) {
    const inputTokens = node.usage?.input_tokens ?? 0;
    const outputTokens = node.usage?.output_tokens ?? 0;
    if (inputTokens === 0 && outputTokens === 0) continue;
    spent.inputTokens += inputTokens;
    spent.outputTokens += outputTokens;
    const graphNode = workflow.graph.nodes.find((candidate) => candidate.id === node.node_id);
    if (graphNode?.type === "llm") {
      spent.credits += priceOfModelCall(deps.config.billing.prices, {
        provider: graphNode.data.provider,
        model: graphNode.data.model,
        inputTokens,
        outputTokens,
      });
    }
  }
  return spent;
}

/** The published (or never-published draft) workflow of a workflow app. */
async function appWorkflow(deps: Deps, app: AppRow) {
  const draft = app.workflowId ? await findWorkflow(deps.db, app.workspaceId, app.workflowId) : undefined;
  if (!draft) throw AppErrors.APP_NOT_FOUND({ message: "This app's workflow no longer exists." });
  const chosen = await workflowToRun(deps.db, draft, "published");
  if (chosen === "version_not_found") throw AppErrors.APP_NOT_FOUND();
  return chosen;
}

function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}

/**
 * `/api/public/apps/{slug}/…`: the API an app's end users reach, through the web app, the widget
 * or a customer's own frontend. Each end user sees only their own conversations.
 *
 * @example app.route("/api/public/apps", publicAppRoutes(deps, runner));
 */
export function publicAppRoutes(deps: Deps, runner: WorkflowRunner) {
  const router = createRouter<PublicEnv>();
  router.use("/:slug", publicApp(deps));
  router.use("/:slug/*", publicApp(deps));
  const endUserOf = (c: Context<PublicEnv>) =>
    authenticateEndUser(deps, c.get("app"), c.req.header("authorization"), c.req.header("x-end-user"));
  const requireKind = (app: AppRow, kind: AppRow["kind"]) => {
    if (app.kind !== kind) throw AppErrors.WRONG_APP_KIND({ message: `This is a ${app.kind} app.` });
  };

  router.openapi(routes.app, async (c) => {
    const app = c.get("app");
    const inputs =
      app.kind === "workflow"
        ? ((await appWorkflow(deps, app)).workflow.graph.nodes.find((node) => node.type === "start")?.data
            .inputs ?? [])
        : [];
    return c.json(
      {
        slug: app.slug,
        kind: app.kind,
        title: app.title,
        description: app.description,
        theme: app.theme,
        starter_prompts: app.starterPrompts,
        inputs: inputs.map((input) => ({
          name: input.name,
          type: input.type,
          required: input.required ?? false,
          ...(input.description ? { description: input.description } : {}),
        })),
      },
      200,
    );
  });

  router.openapi(routes.session, async (c) => {
    const app = c.get("app");
    const now = deps.clock.now();
    const limit = await consumeRateLimit(
      deps.db,
      `app-session:${app.id}:${clientAddress(c)}`,
      { max: SESSIONS_PER_MINUTE, windowMs: 60_000 },
      now,
    );
    if (!limit.isAllowed) {
      throw AppErrors.END_USER_RATE_LIMITED({
        message: `Too many new sessions from this address; try again in ${limit.retryAfterSeconds} s.`,
        headers: { "Retry-After": String(limit.retryAfterSeconds) },
      });
    }
    const externalId = `anon_${crypto.randomUUID()}`;
    const endUser = await resolveEndUser(deps, app, { kind: "anonymous", externalId, name: undefined });
    const { token, expiresAt } = await issueAnonymousToken(deps.config.secretKey, app, externalId, now);
    return c.json({ token, end_user_id: endUser.id, expires_at: expiresAt.toISOString() }, 201);
  });

  router.openapi(routes.chat, async (c) => {
    const app = c.get("app");
    requireKind(app, "agent");
    const endUser = await endUserOf(c);
    await enforceEndUserLimits(deps, app, endUser);
    const body = c.req.valid("json");
    const context = await findTurnContext(deps.db, app.workspaceId, {
      agentId: app.agentId ?? "",
      conversationId: body.conversation_id,
      version: "published",
    });
    if (!context || context === "version_not_found") {
      throw AppErrors.APP_NOT_FOUND({ message: "This app's agent no longer exists." });
    }
    const prepared = await prepareAgentTurn(deps, app.workspaceId, context, body, 0, {
      endUser: { appId: app.id, endUserId: endUser.id },
      spentWrites: (spent) => [endUserUsageWrite(deps, endUser, spent)],
    });
    return answerTurn(c, deps, prepared, publicTurnView);
  });

  router.openapi(routes.conversations, async (c) => {
    const app = c.get("app");
    const endUser = await endUserOf(c);
    const query = c.req.valid("query");
    const rows = await listAppConversations(
      deps.db,
      app.workspaceId,
      { appId: app.id, endUserId: endUser.id },
      query,
    );
    return c.json(
      toPage(rows, query.limit, (row) => ({
        id: row.id,
        title: row.title,
        created_at: row.createdAt.toISOString(),
        updated_at: row.updatedAt.toISOString(),
      })),
      200,
    );
  });

  router.openapi(routes.messages, async (c) => {
    const app = c.get("app");
    const endUser = await endUserOf(c);
    const owner = { appId: app.id, endUserId: endUser.id };
    const conversation = await findEndUserConversation(
      deps.db,
      app.workspaceId,
      c.req.valid("param").id,
      owner,
    );
    if (!conversation) throw AppErrors.APP_NOT_FOUND({ message: "No conversation with this id." });
    const query = c.req.valid("query");
    const rows = await listMessagesWithFeedback(deps.db, app.workspaceId, conversation.id, query);
    return c.json(
      toPage(rows, query.limit, (row) => {
        const own = row.feedback.find((feedback) => feedback.source === "user");
        return {
          ...publicMessage(toMessageJson(row)),
          feedback: own ? { rating: own.rating, comment: own.comment } : null,
        };
      }),
      200,
    );
  });

  router.openapi(routes.feedback, async (c) => {
    const app = c.get("app");
    const endUser = await endUserOf(c);
    const body = c.req.valid("json");
    const messageId = c.req.valid("param").id;
    const comment = body.rating === null ? null : (body.comment ?? null);
    const isRated = await rateMessage(
      deps,
      app.workspaceId,
      messageId,
      { source: "user", rating: body.rating, comment },
      { appId: app.id, endUserId: endUser.id },
    );
    if (!isRated) throw AppErrors.MESSAGE_NOT_FOUND();
    return c.json({ message_id: messageId, rating: body.rating, comment }, 200);
  });

  router.openapi(routes.run, async (c) => {
    const app = c.get("app");
    requireKind(app, "workflow");
    const endUser = await endUserOf(c);
    const inputs = (c.req.valid("json") as { inputs?: Record<string, unknown> } | undefined)?.inputs ?? {};
    const { workflow, version } = await appWorkflow(deps, app);
    checkRunnable(runner, workflow, inputs, version);
    await enforceEndUserLimits(deps, app, endUser);
    await requireCredits(deps, app.workspaceId, { work: "This workflow run" });
    return answerRun(
      c,
      deps,
      runner,
      {
        workspaceId: app.workspaceId,
        workflow,
        inputs,
        trigger: "app",
        version,
        endUser: { appId: app.id, endUserId: endUser.id },
      },
      (result) => publicRun(deps, result),
      (event) => publicRunEvent(deps, event),
      (result) =>
        writeTogether(deps.db, [endUserUsageWrite(deps, endUser, runSpending(deps, workflow, result))]),
    );
  });
  return router;
}
