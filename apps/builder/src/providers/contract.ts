import { z } from "@hono/zod-openapi";

const capability = z.enum(["chat", "tools", "vision", "embeddings", "json"]);

export const providerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    env_key: z.string().nullable(),
    requires_base_url: z.boolean(),
    default_base_url: z.string().nullable(),
    docs_url: z.string(),
    models: z.array(
      z.object({ id: z.string(), capabilities: z.array(capability), context_window: z.number().optional() }),
    ),
  })
  .openapi("Provider");

export const providerModelsSchema = z
  .object({
    provider: z.string(),
    data: z.array(
      z.object({
        id: z.string(),
        capabilities: z
          .array(capability)
          .openapi({ description: "Empty when only the live listing knows the model" }),
        context_window: z.number().optional(),
        source: z.enum(["catalogue", "live", "both"]),
      }),
    ),
    live: z.object({ status: z.enum(["ok", "not_configured", "failed"]), message: z.string().nullable() }),
  })
  .openapi("ProviderModels");

export const providerList = z.object({
  data: z.array(providerSchema),
  default_provider: z.string().nullable().openapi({
    description:
      "What a new agent gets without a provider: the provider of the workspace's newest stored key, else one the server has a key for; null when none is set up",
  }),
});

export const providerModelsQuery = z.object({
  credential_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "credential_id", in: "query" } }),
});
