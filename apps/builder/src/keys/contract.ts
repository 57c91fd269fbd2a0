import { z } from "@hono/zod-openapi";
import { ASSIGNABLE_ROLES } from "../workspaces/roles.ts";

const keyRole = z.enum(ASSIGNABLE_ROLES).openapi({
  description: "What the key may do in the workspace; never more than its creator's role at the time of use",
});

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z.number().int().min(1).max(3650).optional(),
    role: keyRole.optional().openapi({ description: "Default: your own role (admin for the owner)" }),
  })
  .strict()
  .openapi("CreateApiKeyRequest");

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the key, to tell keys apart" }),
    role: keyRole,
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("ApiKey");

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().openapi({ description: "The whole key. Shown in this response only." }) })
  .openapi("CreatedApiKey");
