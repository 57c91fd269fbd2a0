import { z } from "@hono/zod-openapi";
import { PROVIDER_IDS } from "../providers/catalogue.ts";

export const createCredentialBody = z
  .object({
    provider: z
      .string()
      .refine((value) => PROVIDER_IDS.includes(value), {
        message: `must be one of the providers listed at GET /api/providers (${PROVIDER_IDS.join(", ")})`,
      })
      .openapi({ example: "openai" }),
    api_key: z
      .string()
      .trim()
      .min(1)
      .max(4096)
      .openapi({ description: "Stored encrypted; never shown again." }),
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .openapi({ description: "Where the provider's API is served; required for openai-compatible" }),
    name: z.string().trim().min(1).max(100).optional(),
  })
  .openapi("CreateCredentialRequest");

export const credentialSchema = z
  .object({
    id: z.string().openapi({ example: "cred_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    provider: z.string(),
    name: z.string(),
    base_url: z.string().nullable(),
    key_hint: z.string().openapi({ example: "sk-…1234", description: "The only part of the key ever shown" }),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("Credential");

export const credentialCheckSchema = z
  .object({
    ok: z.literal(true),
    provider: z.string(),
    model_count: z.number().int().openapi({ description: "Models the provider lists for this key" }),
    latency_ms: z.number().int(),
  })
  .openapi("CredentialCheck");

export type CreateCredentialInput = z.infer<typeof createCredentialBody>;
