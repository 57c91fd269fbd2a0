import {
  apiDocs,
  completeErrorResponses,
  compressJson,
  errorHandler,
  guardInput,
  healthRoutes,
  limitBody,
  notFoundHandler,
  requestId,
  requestLogger,
  validationHook,
} from "@app/http";
import { metricsRoutes, traceRequests } from "@app/observability";
import { OpenAPIHono } from "@hono/zod-openapi";
import { APIError } from "better-auth/api";
import { sql } from "drizzle-orm";
import { conversationRoutes } from "./agents/chat-routes.ts";
import { agentRoutes } from "./agents/routes.ts";
import { sandboxCodeRunner } from "./agents/sandbox-code-runner.ts";
import { appPageRoutes } from "./app-pages/routes.ts";
import { findAppBySlug } from "./apps/manage-apps.ts";
import { publicAppRoutes } from "./apps/public-routes.ts";
import { appRoutes } from "./apps/routes.ts";
import { startAuditRetention } from "./audit/audit-retention.ts";
import { auditWrites } from "./audit/audit-writes.ts";
import { auditRoutes } from "./audit/routes.ts";
import { createAuth } from "./auth/auth.ts";
import { PrincipalCache } from "./auth/principal-cache.ts";
import { requireAuth } from "./auth/require-auth.ts";
import { authRoutes, betterAuthErrorFields } from "./auth/routes.ts";
import { BILLING_WEBHOOK_PATH, createBillingFeature } from "./billing/billing-feature.ts";
import { credentialRoutes } from "./credentials/routes.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { createEventDelivery } from "./events/event-delivery.ts";
import { eventRoutes } from "./events/routes.ts";
import { createGenerationFeature } from "./generation/generation-feature.ts";
import { apiKeyRoutes } from "./keys/routes.ts";
import { createKnowledgeFeature } from "./knowledge/knowledge-feature.ts";
import { RAG_UPLOAD_PATH } from "./knowledge/routes.ts";
import { createMailer } from "./mail/mailer.ts";
import { MCP_ENDPOINT_PATH, type McpEndpoint, registerMcpEndpointDocs } from "./mcp/mcp-endpoint.ts";
import { createMcpFeature } from "./mcp/mcp-feature.ts";
import { OAUTH_CALLBACK_PATH } from "./mcp/mcp-oauth.ts";
import { builderMetrics } from "./metrics.ts";
import { providerRoutes } from "./providers/routes.ts";
import { sandboxCodeCapability } from "./sandbox/capabilities.ts";
import { sandboxRoutes } from "./sandbox/routes.ts";
import { studioRoutes } from "./studio/serve-studio.ts";
import { usageRoutes } from "./usage/routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { HOOK_BODY_LIMIT_BYTES, hookRoutes } from "./workflows/hook-routes.ts";
import { createNodeServices } from "./workflows/node-services.ts";
import { workflowRoutes } from "./workflows/routes.ts";
import { WorkflowRunner } from "./workflows/runs/workflow-runner.ts";
import { scheduleRoutes } from "./workflows/schedules/routes.ts";
import { createScheduler, type Scheduler } from "./workflows/schedules/scheduler.ts";
import { workflowToolRunner } from "./workflows/workflow-tool-runner.ts";
import { RouteRoles } from "./workspaces/access.ts";
import { completeWorkspaceAccess } from "./workspaces/access-docs.ts";
import { WorkspaceErrors } from "./workspaces/errors.ts";
import { MembershipCache } from "./workspaces/memberships.ts";
import { invitationRoutes, memberRoutes, workspaceRoutes } from "./workspaces/routes.ts";
import { sharedOwnedWorkspaces } from "./workspaces/shared-owned-workspaces.ts";

/** JSON bodies of the API; uploads get their own, larger limit on their route. */
const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/** Prefixes under /api that are reachable without a session or key. */
const PUBLIC_API_PATHS = [
  "/api/auth/",
  "/api/openapi.json",
  "/api/docs",
  "/api/hooks/",
  // Replicate signs its webhooks; the route verifies them itself.
  "/api/replicate/webhook",
  // So does the payment service (X-Service-Signature).
  BILLING_WEBHOOK_PATH,
  // An MCP server's authorization server sends the person back here; the state proves the right.
  OAUTH_CALLBACK_PATH,
  // Apps' end users: each route checks the end user's own token or the app key itself.
  "/api/public/",
] as const;

export interface BuilderApp {
  app: ReturnType<typeof createRoutes>;
  /** Background work: recovery of interrupted runs, heartbeats, workers, webhook delivery. */
  start(): Promise<void>;
  /** Stops background work and aborts what is still running in this process. */
  stop(): Promise<void>;
  /** Fires workflow schedules; started and stopped with the rest (tests drive a round with `runDue`). */
  scheduler: Scheduler;
}

/**
 * The builder: its HTTP app (every feature under /api, one error shape, one auth check) and its
 * background work.
 *
 * @example const builder = createBuilderApp(deps); await builder.start(); await listen(builder.app.fetch, { port: 3000 });
 */
export function createBuilderApp(input: Deps): BuilderApp {
  // Features emit events in their own transactions and wake the engine that delivers them.
  const events = createEventDelivery(input);
  const mailer =
    input.mailer ??
    createMailer({ smtpUrl: input.config.mail.smtpUrl, from: input.config.mail.from, logger: input.logger });
  const given: Deps = { ...input, deliveries: events, mailer };
  let runner: WorkflowRunner | undefined;
  const getRunner = () => {
    if (!runner) throw new Error("the workflow runner is not ready");
    return runner;
  };
  const generation = createGenerationFeature(given);
  const mcp = createMcpFeature(given);
  given.mcpExposure = mcp.exposure;
  // The sandbox and the workflow runner serve agents' code and workflow tools as well as Code nodes;
  // what the caller passes explicitly wins (tests swap in their own).
  const deps: Deps = {
    ...given,
    agentTools: {
      ...(given.sandbox ? { code: sandboxCodeRunner(given.sandbox, given) } : {}),
      workflows: workflowToolRunner(given, getRunner),
      mcp: mcp.tools,
      ...given.agentTools,
    },
    workflowCapabilities: {
      ...(given.sandbox ? { code: sandboxCodeCapability(given.sandbox, given) } : {}),
      generation: generation.capability,
      mcp: mcp.tools,
      ...given.workflowCapabilities,
    },
  };
  runner = new WorkflowRunner(deps, createNodeServices(deps, deps.workflowCapabilities ?? {}, getRunner));
  const scheduler = createScheduler(deps, runner);
  const knowledge = createKnowledgeFeature(deps);
  const billing = createBillingFeature(deps);
  const app = createRoutes(
    deps,
    runner,
    scheduler,
    knowledge.routes,
    generation,
    billing.routes,
    mcp.serverRoutes,
    mcp.serve(deps, getRunner),
  );
  let auditRetention: { stop(): void } | undefined;
  return {
    app,
    scheduler,
    start: async () => {
      auditRetention = startAuditRetention(deps);
      await getRunner().start();
      // After the runner: its start closes runs a crash left running, which overlap rules read.
      scheduler.start();
      await knowledge.worker.start();
      await generation.worker.start();
      events.start();
      billing.worker.start();
    },
    stop: async () => {
      auditRetention?.stop();
      await billing.worker.stop();
      await generation.worker.stop();
      await knowledge.worker.stop();
      // Before the runner, so no tick is claimed that the stopping runner would only abort.
      await scheduler.stop();
      await getRunner().stop();
      await mcp.stop();
      // Last, so events the workers above committed while stopping still go out.
      await events.stop();
      if (!input.mailer) await mailer.close();
    },
  };
}

function requireMailer(deps: Deps) {
  if (!deps.mailer) throw new Error("createBuilderApp sets the mailer before the routes");
  return deps.mailer;
}

function createRoutes(
  deps: Deps,
  runner: WorkflowRunner,
  scheduler: Scheduler,
  knowledge: ReturnType<typeof createKnowledgeFeature>["routes"],
  generation: ReturnType<typeof createGenerationFeature>,
  billing: ReturnType<typeof createBillingFeature>["routes"],
  mcpServers: ReturnType<typeof createMcpFeature>["serverRoutes"],
  mcpEndpoint: McpEndpoint,
) {
  const { config, logger } = deps;
  const principals = new PrincipalCache(deps.clock);
  const memberships = new MembershipCache(deps);
  const auth = createAuth({
    db: deps.db,
    secretKey: config.secretKey,
    publicUrl: config.publicUrl,
    trustedOrigins: [`http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`],
    signInPerMinute: config.auth.signInPerMinute,
    requireEmailVerification: config.auth.requireEmailVerification,
    mailer: requireMailer(deps),
    onSessionDeleted: (session) => principals.deleteSession(session.id),
    beforeDeleteUser: async (user) => {
      const shared = await sharedOwnedWorkspaces(deps.db, user.id);
      if (shared.length > 0)
        throw new APIError("CONFLICT", {
          code: "WORKSPACE_HAS_MEMBERS",
          message: `${WorkspaceErrors.WORKSPACE_HAS_MEMBERS().message} (${shared.map((w) => w.name).join(", ")})`,
        });
    },
  });

  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const metrics = builderMetrics(deps);
  app.use(requestId());
  app.use(compressJson());
  app.use(traceRequests((c) => ({ "workspace.id": c.var.principal?.workspaceId })));
  app.use(metrics.middleware);
  app.use(requestLogger(logger));
  app.onError(errorHandler(logger));
  app.notFound(notFoundHandler);

  app.route(
    "/",
    healthRoutes<AppEnv>(async () => {
      await deps.db.execute(sql`select 1`);
    }),
  );

  app.route("/", metricsRoutes<AppEnv>(metrics));

  app.use("/api/auth/*", betterAuthErrorFields());
  const jsonBodyLimit = limitBody(JSON_BODY_LIMIT_BYTES);
  // The upload streams its multipart body and enforces RAG_MAX_UPLOAD_MB itself.
  app.use((c, next) => (c.req.path === RAG_UPLOAD_PATH ? next() : jsonBodyLimit(c, next)));
  app.use("/api/hooks/*", limitBody(HOOK_BODY_LIMIT_BYTES));
  app.use(guardInput({ isBodyUnbounded: (path) => path === RAG_UPLOAD_PATH }));
  const routeRoles = new RouteRoles(() => app.openAPIRegistry.definitions as never);
  app.use("/api/*", requireAuth(deps, auth, { principals, memberships, routeRoles }, PUBLIC_API_PATHS));
  app.use("/api/*", auditWrites(deps, routeRoles));
  app.route("/api/auth", authRoutes(auth, principals, config.publicUrl));
  app.route("/api/keys", apiKeyRoutes(deps, principals));
  app.route("/api/workspaces", workspaceRoutes(deps, { principals, memberships }));
  app.route("/api/members", memberRoutes(deps, { principals, memberships }));
  app.route("/api/audit-log", auditRoutes(deps));
  app.route(
    "/api/invitations",
    invitationRoutes({ ...deps, mailer: requireMailer(deps) }, { principals, memberships }),
  );
  app.route("/api/providers", providerRoutes(deps));
  app.route("/api/credentials", credentialRoutes(deps));
  app.route("/api/agents", agentRoutes(deps));
  app.route("/api", workflowRoutes(deps, runner));
  app.route("/api", scheduleRoutes(deps, runner, scheduler));
  app.route("/api/hooks", hookRoutes(deps, runner));
  app.route("/api/conversations", conversationRoutes(deps));
  app.route("/api/usage", usageRoutes(deps));
  app.route("/api", knowledge);
  app.route("/api/sandbox", sandboxRoutes(deps, deps.sandbox));
  app.route("/api/replicate", generation.replicateRoutes);
  app.route("/api/generations", generation.generationRoutes);
  app.route("/api/files", generation.fileRoutes);
  app.route("/api/public/files", generation.publicFileRoutes);
  app.route("/api/billing", billing);
  app.route("/api/webhooks", webhookRoutes(deps));
  app.route("/api/events", eventRoutes(deps));
  app.route("/api/mcp-servers", mcpServers);
  app.route("/api/apps", appRoutes(deps));
  app.route("/api/public/apps", publicAppRoutes(deps, runner));
  app.on(["GET", "POST", "DELETE"], MCP_ENDPOINT_PATH, (c) => mcpEndpoint.handle(c));
  registerMcpEndpointDocs(app.openAPIRegistry);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key from POST /api/keys",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "endUserToken", {
    type: "http",
    scheme: "bearer",
    description:
      "An app's end user: a token from POST /api/public/apps/{slug}/session, a JWT (HS256) signed with the app's end-user secret, or an app key with X-End-User",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "cookieAuth", {
    type: "apiKey",
    in: "cookie",
    name: "better-auth.session_token",
  });
  // Built on the first request for it, not at start: walking every route's schemas is start-up time
  // that no other request needs.
  const buildDocument = () =>
    completeWorkspaceAccess(
      completeErrorResponses(
        app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "Builder API",
            version: "0.1.0",
            description:
              "The AI application builder: accounts, agents, workflows, knowledge bases, generation, billing, and events with signed webhooks.",
          },
          servers: [{ url: config.publicUrl }],
          security: [{ bearerAuth: [] }, { cookieAuth: [] }],
        }),
        (path) => (path.startsWith("/api/auth/") ? "AuthError" : "Error"),
      ),
      (path) => PUBLIC_API_PATHS.some((prefix) => path.startsWith(prefix)),
    );
  let document: ReturnType<typeof buildDocument> | undefined;
  app.get("/api/openapi.json", (c) => {
    document ??= buildDocument();
    return c.json(document);
  });
  app.route("/api/docs", apiDocs({ specUrl: "/api/openapi.json", title: "Builder API" }));
  // The widget's script and the web app's pages, before the studio's catch-all.
  app.route(
    "/",
    appPageRoutes({
      findApp: async (slug) => {
        const row = await findAppBySlug(deps.db, slug);
        return row ? { allowedOrigins: row.allowedOrigins, title: row.title } : null;
      },
    }),
  );
  app.route("/", studioRoutes());

  return app;
}
