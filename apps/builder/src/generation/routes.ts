import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  resourceRoutes,
  toPage,
} from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { cancelGeneration } from "./cancel-generation.ts";
import {
  generateBody,
  generationFilters,
  generationSchema,
  modelInputsSchema,
  modelListSchema,
  modelParams,
  modelQuery,
  webhookAnswerSchema,
  webhookQuery,
} from "./contract.ts";
import { createGeneration } from "./create-generation.ts";
import { deleteGeneration } from "./delete-generation.ts";
import { describeModelInputs } from "./describe-model-inputs.ts";
import { GenerationErrors } from "./errors.ts";
import { findGeneration } from "./find-generation.ts";
import type { GenerationContext } from "./generation-context.ts";
import { toGenerationJson } from "./generation-json.ts";
import { listGenerations } from "./list-generations.ts";
import { listModels, type ModelList } from "./list-models.ts";
import { receiveWebhook } from "./receive-webhook.ts";
import type { TtlCache } from "./ttl-cache.ts";

const generateRoute = (kind: "image" | "video") =>
  createRoute({
    method: "post",
    path: `/generate/${kind}`,
    tags: ["generation"],
    summary: `Generate ${kind === "image" ? "an image" : "a video"} with a Replicate model`,
    description:
      "Creates a generation. With `wait` the request is held up to that many seconds while Replicate runs; " +
      "otherwise it answers at once and the status progresses in the background (webhook or polling).",
    request: { body: { required: true, content: jsonContent(generateBody) } },
    responses: {
      201: {
        description: "The generation (finished when `wait` sufficed)",
        content: jsonContent(generationSchema),
      },
      // 402: out of credits (with BILLING_ENFORCE=1); 424: no Replicate token (no Replicate credential in
      // the workspace, no REPLICATE_API_TOKEN); 502: Replicate refused the request or could not be reached.
      ...errorResponses(400, 401, 402, 413, 415, 422, 424, 502),
    },
  });

const modelsRoute = createRoute({
  method: "get",
  path: "/models",
  tags: ["generation"],
  summary:
    "Image or video models from Replicate's collections or search with the workspace's token (cached per token), or a curated list without one",
  request: { query: modelQuery },
  responses: {
    200: { description: "Models", content: jsonContent(modelListSchema) },
    ...errorResponses(401, 422),
  },
});

const modelInputsRoute = createRoute({
  method: "get",
  path: "/models/{owner}/{name}",
  tags: ["generation"],
  summary: "The inputs a model accepts (from its latest version's input schema), for building a form",
  request: { params: modelParams },
  responses: {
    200: { description: "The model's inputs", content: jsonContent(modelInputsSchema) },
    // 424: no Replicate token (no Replicate credential in the workspace, no REPLICATE_API_TOKEN).
    ...errorResponses(401, 422, 424),
  },
});

const webhookRoute = createRoute({
  method: "post",
  path: "/webhook",
  tags: ["generation"],
  summary: "Replicate's signed completion webhook (Standard Webhooks headers; no session)",
  description:
    "Verified with the signing secret of the Replicate account whose token created the generation named by " +
    "`generation_id` (`webhook-id`, `webhook-timestamp`, `webhook-signature`, 5-minute tolerance); a `webhook-id` " +
    "is applied once. The body is Replicate's prediction JSON.",
  security: [],
  request: { query: webhookQuery },
  responses: {
    200: { description: "Received", content: jsonContent(webhookAnswerSchema) },
    ...errorResponses(401, 404, 424),
  },
});

const routes = resourceRoutes({ tag: "generation", schema: generationSchema });

const listRoute = routes.list({
  summary: "List the caller's generations, newest first",
  description: "A page of generations",
  query: listQuerySchema.extend(generationFilters.shape),
  page: listOf(generationSchema).openapi("GenerationList"),
});

const getRoute = routes.get({ summary: "Get a generation", description: "The generation" });

const cancelRoute = createRoute({
  method: "post",
  path: "/{id}/cancel",
  tags: ["generation"],
  summary: "Cancel an unfinished generation",
  request: { params: idParam },
  responses: {
    200: { description: "The generation after the cancel", content: jsonContent(generationSchema) },
    // 424: the generation's Replicate credential was deleted and no other token is left.
    ...errorResponses(401, 404, 409, 424, 502),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["generation"],
  summary: "Delete a generation and its stored files",
  request: { params: idParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
});

/**
 * `/api/replicate`: generate, models and the (public) webhook.
 *
 * @example app.route("/api/replicate", replicateRoutes(context, modelCache));
 */
export function replicateRoutes(context: GenerationContext, modelCache: TtlCache<ModelList>) {
  const router = createRouter<AppEnv>();
  for (const kind of ["image", "video"] as const) {
    router.openapi(generateRoute(kind), async (c) => {
      const body = c.req.valid("json");
      const row = await createGeneration(context, c.get("principal").workspaceId, { kind, ...body });
      return c.json(toGenerationJson(row, context.config.publicUrl), 201);
    });
  }
  router.openapi(modelsRoute, async (c) => {
    const query = c.req.valid("query");
    const workspaceId = c.get("principal").workspaceId;
    return c.json(
      await listModels(context, modelCache, workspaceId, { kind: query.type, query: query.query }),
      200,
    );
  });
  router.openapi(modelInputsRoute, async (c) => {
    const { owner, name } = c.req.valid("param");
    return c.json(
      await describeModelInputs(context, c.get("principal").workspaceId, `${owner}/${name}`),
      200,
    );
  });
  router.openapi(webhookRoute, async (c) => {
    // The signature covers the exact bytes, so the body is read raw, never re-serialised.
    const body = await c.req.text();
    const outcome = await receiveWebhook(
      context,
      {
        id: c.req.header("webhook-id"),
        timestamp: c.req.header("webhook-timestamp"),
        signature: c.req.header("webhook-signature"),
      },
      body,
      c.req.valid("query").generation_id,
    );
    return c.json({ received: true as const, outcome }, 200);
  });
  return router;
}

/**
 * `/api/generations`: list, get, cancel, delete.
 *
 * @example app.route("/api/generations", generationRoutes(context));
 */
export function generationRoutes(context: GenerationContext) {
  const router = createRouter<AppEnv>();
  const toJson = (row: Parameters<typeof toGenerationJson>[0]) =>
    toGenerationJson(row, context.config.publicUrl);
  router.openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listGenerations(context, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toJson), 200);
  });
  router.openapi(getRoute, async (c) => {
    const row = await findGeneration(context, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw GenerationErrors.GENERATION_NOT_FOUND();
    return c.json(toJson(row), 200);
  });
  router.openapi(cancelRoute, async (c) => {
    const row = await cancelGeneration(context, c.get("principal").workspaceId, c.req.valid("param").id);
    return c.json(toJson(row), 200);
  });
  router.openapi(deleteRoute, async (c) => {
    await deleteGeneration(context, c.get("principal").workspaceId, c.req.valid("param").id);
    return c.body(null, 204);
  });
  return router;
}
