import { z } from "@hono/zod-openapi";

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z.number().int().min(1).max(3650).optional(),
  })
  .strict()
  .openapi("CreateApiKeyRequest");

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the key, to tell keys apart" }),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("ApiKey");

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().openapi({ description: "The whole key. Shown in this response only." }) })
  .openapi("CreatedApiKey");
