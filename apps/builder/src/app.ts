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
import { sql } from "drizzle-orm";
import { conversationRoutes } from "./agents/chat-routes.ts";
import { agentRoutes } from "./agents/routes.ts";
import { annotationRoutes } from "./annotations/routes.ts";
import { appPageRoutes } from "./app-pages/routes.ts";
import { findAppBySlug } from "./apps/manage-apps.ts";
import { publicAppRoutes } from "./apps/public-routes.ts";
import { appRoutes } from "./apps/routes.ts";
import { createAuth } from "./auth/auth.ts";
import { PrincipalCache } from "./auth/principal-cache.ts";
import { requireAuth } from "./auth/require-auth.ts";
import { authRoutes, betterAuthErrorFields } from "./auth/routes.ts";
import { BILLING_WEBHOOK_PATH, createBillingFeature } from "./billing/billing-feature.ts";
import { credentialRoutes } from "./credentials/routes.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { createEvaluationWorker, type EvaluationWorker } from "./evaluations/evaluation-worker.ts";
import { createPublishGate } from "./evaluations/publish-gate.ts";
import { datasetRoutesOf, evaluationRoutes } from "./evaluations/routes.ts";
import { createEventDelivery } from "./events/event-delivery.ts";
import { eventRoutes } from "./events/routes.ts";
import { createGenerationFeature } from "./generation/generation-feature.ts";
import { apiKeyRoutes } from "./keys/routes.ts";
import { createKnowledgeFeature } from "./knowledge/knowledge-feature.ts";
import { RAG_UPLOAD_PATH } from "./knowledge/routes.ts";
import { logRoutes } from "./logs/routes.ts";
import { MCP_ENDPOINT_PATH, type McpEndpoint, registerMcpEndpointDocs } from "./mcp/mcp-endpoint.ts";
import { createMcpFeature } from "./mcp/mcp-feature.ts";
import { OAUTH_CALLBACK_PATH } from "./mcp/mcp-oauth.ts";
import { builderMetrics } from "./metrics.ts";
import { exportSchemaRoutes } from "./portability/routes.ts";
import { providerRoutes } from "./providers/routes.ts";
import { sandboxCodeCapability, sandboxCodeRunner } from "./sandbox/metered-sandbox.ts";
import { sandboxRoutes } from "./sandbox/routes.ts";
import { studioRoutes } from "./studio/serve-studio.ts";
import { usageRoutes } from "./usage/routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { HOOK_BODY_LIMIT_BYTES, hookRoutes } from "./workflows/hook-routes.ts";
import { createNodeServices } from "./workflows/node-services.ts";
import { workflowRoutes } from "./workflows/routes.ts";
import { startErrorWorkflow } from "./workflows/runs/error-workflow.ts";
import { createRunRetention, type RunRetentionWorker } from "./workflows/runs/run-retention.ts";
import { WorkflowRunner } from "./workflows/runs/workflow-runner.ts";
import { scheduleRoutes } from "./workflows/schedules/routes.ts";
import { createScheduler, type Scheduler } from "./workflows/schedules/scheduler.ts";
import { workflowToolRunner } from "./workflows/workflow-tool-runner.ts";

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
  // The JSON Schema of export documents, which the documents name in their `$schema`.
  "/api/schemas/",
] as const;

export interface BuilderApp {
  app: ReturnType<typeof createRoutes>;
  /** Background work: recovery of interrupted runs, heartbeats, workers, webhook delivery. */
  start(): Promise<void>;
  /** Stops background work and aborts what is still running in this process. */
  stop(): Promise<void>;
  /** Fires workflow schedules; started and stopped with the rest (tests drive a round with `runDue`). */
  scheduler: Scheduler;
  /** Prunes finished workflow runs past their retention (tests call `pruneNow`). */
  runRetention: RunRetentionWorker;
  /** Executes workflow runs; its sweep (tests call `expireApprovals` after moving a manual clock). */
  runner: WorkflowRunner;
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
  const given: Deps = { ...input, deliveries: events };
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
  runner.onRunFailed = (run) => startErrorWorkflow(deps, getRunner(), run);
  const scheduler = createScheduler(deps, runner);
  const runRetention = createRunRetention(deps);
  const knowledge = createKnowledgeFeature(deps);
  const billing = createBillingFeature(deps);
  const evaluations = createEvaluationWorker(deps, runner);
  deps.publishGate = createPublishGate(deps, evaluations);
  const app = createRoutes(
    deps,
    runner,
    scheduler,
    knowledge.routes,
    generation,
    billing.routes,
    mcp.serverRoutes,
    mcp.serve(deps, getRunner),
    evaluations,
  );
  return {
    app,
    scheduler,
    runRetention,
    runner,
    start: async () => {
      await getRunner().start();
      // After the runner: its start closes runs a crash left running, which overlap rules read.
      scheduler.start();
      await knowledge.worker.start();
      await generation.worker.start();
      events.start();
      billing.worker.start();
      runRetention.start();
      await evaluations.start();
    },
    stop: async () => {
      // First, while the runner and providers still answer: rows in hand are released for the next process.
      await evaluations.stop();
      await runRetention.stop();
      await billing.worker.stop();
      await generation.worker.stop();
      await knowledge.worker.stop();
      // Before the runner, so no tick is claimed that the stopping runner would only abort.
      await scheduler.stop();
      await getRunner().stop();
      await mcp.stop();
      // Last, so events the workers above committed while stopping still go out.
      await events.stop();
    },
  };
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
  evaluations: EvaluationWorker,
) {
  const { config, logger } = deps;
  const auth = createAuth({
    db: deps.db,
    secretKey: config.secretKey,
    publicUrl: config.publicUrl,
    trustedOrigins: [`http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`],
    signInPerMinute: config.auth.signInPerMinute,
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
  const principals = new PrincipalCache(deps.clock);
  app.use("/api/*", requireAuth(deps, auth, principals, PUBLIC_API_PATHS));
  app.route("/api/auth", authRoutes(auth, principals));
  app.route("/api/keys", apiKeyRoutes(deps, principals));
  app.route("/api/providers", providerRoutes(deps));
  app.route("/api/credentials", credentialRoutes(deps));
  // Before the agent, conversation and run routes: `/conversations/export` is not a conversation id.
  app.route("/api", logRoutes(deps));
  app.route("/api/agents", agentRoutes(deps));
  app.route("/api/agents", annotationRoutes(deps));
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
  app.route("/api/datasets", datasetRoutesOf(deps));
  app.route("/api/evaluations", evaluationRoutes(deps, evaluations));
  app.route("/api/schemas", exportSchemaRoutes());
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
