import { z } from "@hono/zod-openapi";
import { PROVIDER_IDS } from "../providers/catalogue.ts";

/**
 * The credential kind that is not a model provider: a token, password or API key that HTTP nodes
 * and the http_request tool send (`auth.credential_id`), so the secret stays out of the workflow.
 */
export const HTTP_SECRET_KIND = "http";
/**
 * A Replicate API token for image and video generation (docs/generation.md). Not a language-model
 * provider, so it is not in the catalogue of GET /api/providers; it has no base_url of its own (the
 * server's REPLICATE_BASE_URL applies).
 */
export const REPLICATE_KIND = "replicate";
const CREDENTIAL_KINDS = [...PROVIDER_IDS, REPLICATE_KIND, HTTP_SECRET_KIND];

export const createCredentialBody = z
  .object({
    provider: z
      .string()
      .refine((value) => CREDENTIAL_KINDS.includes(value), {
        message: `must be one of the providers listed at GET /api/providers (${PROVIDER_IDS.join(", ")}), "${REPLICATE_KIND}" or "${HTTP_SECRET_KIND}"`,
      })
      .openapi({
        example: "openai",
        enum: CREDENTIAL_KINDS,
        description: `A provider id, "${REPLICATE_KIND}" for a Replicate API token (image and video generation), or "${HTTP_SECRET_KIND}" for a secret that HTTP nodes send`,
      }),
    api_key: z
      .string()
      .trim()
      .min(1)
      .max(4096)
      .openapi({ description: "The key or secret; stored encrypted and never shown again." }),
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .openapi({
        description: `Where the provider's API is served; required for openai-compatible, refused for "${REPLICATE_KIND}" and "${HTTP_SECRET_KIND}"`,
      }),
    name: z.string().trim().min(1).max(100).optional(),
  })
  .strict()
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
    model_count: z
      .number()
      .int()
      .nullable()
      .openapi({
        description: `Models the provider lists for this key; null for "${REPLICATE_KIND}", which is checked with its account instead`,
      }),
    account: z
      .string()
      .nullable()
      .openapi({
        description: `The account the key belongs to, for "${REPLICATE_KIND}" (its username); null for model providers`,
      }),
    latency_ms: z.number().int(),
  })
  .openapi("CredentialCheck");

export type CreateCredentialInput = z.infer<typeof createCredentialBody>;
