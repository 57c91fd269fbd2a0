import {
  apiDocs,
  errorHandler,
  healthRoutes,
  limitBody,
  notFoundHandler,
  requestId,
  requestLogger,
  validationHook,
} from "@app/http";
import { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { agentRoutes } from "./agents/routes.ts";
import { createAuth } from "./auth/auth.ts";
import { PrincipalCache } from "./auth/principal-cache.ts";
import { requireAuth } from "./auth/require-auth.ts";
import { authRoutes } from "./auth/routes.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { apiKeyRoutes } from "./keys/routes.ts";
import { providerRoutes } from "./providers/routes.ts";
import { studioRoutes } from "./studio/serve-studio.ts";

/** JSON bodies of the API; uploads get their own, larger limit on their route. */
const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/** Prefixes under /api that are reachable without a session or key. */
const PUBLIC_API_PATHS = ["/api/auth/", "/api/openapi.json", "/api/docs"] as const;

/**
 * The builder's HTTP app: every feature mounted under /api, with one error shape and one auth check.
 *
 * @example const app = createBuilderApp(deps); await listen(app.fetch, { port: 3000 });
 */
export function createBuilderApp(deps: Deps) {
  const { config, logger } = deps;
  const auth = createAuth({
    db: deps.db,
    secretKey: config.secretKey,
    publicUrl: config.publicUrl,
    trustedOrigins: [`http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`],
    signInPerMinute: config.auth.signInPerMinute,
  });

  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use(requestId());
  app.use(requestLogger(logger));
  app.onError(errorHandler(logger));
  app.notFound(notFoundHandler);

  app.route(
    "/",
    healthRoutes<AppEnv>(async () => {
      await deps.db.execute(sql`select 1`);
    }),
  );

  app.use("/api/*", limitBody(JSON_BODY_LIMIT_BYTES));
  const principals = new PrincipalCache(deps.clock);
  app.use("/api/*", requireAuth(deps, auth, principals, PUBLIC_API_PATHS));
  app.route("/api/auth", authRoutes(auth, principals));
  app.route("/api/keys", apiKeyRoutes(deps, principals));
  app.route("/api/providers", providerRoutes());
  app.route("/api/agents", agentRoutes(deps));

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key from POST /api/keys",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "cookieAuth", {
    type: "apiKey",
    in: "cookie",
    name: "better-auth.session_token",
  });
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Builder API",
      version: "0.1.0",
      description: "The AI application builder: accounts, agents, workflows, knowledge bases and generation.",
    },
    servers: [{ url: config.publicUrl }],
    security: [{ bearerAuth: [] }, { cookieAuth: [] }],
  });
  app.get("/api/openapi.json", (c) => c.json(document));
  app.route("/api/docs", apiDocs({ specUrl: "/api/openapi.json", title: "Builder API" }));
  app.route("/", studioRoutes());

  return app;
}
