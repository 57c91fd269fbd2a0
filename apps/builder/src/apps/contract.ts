import { listQuerySchema, patchBody, searchableListQuerySchema } from "@app/http";
import { z } from "@hono/zod-openapi";

/** A public address: lower-case letters, digits and inner hyphens, 3–63 characters. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/**
 * An origin a browser sends: `https://host[:port]`, or `http://` for loopback hosts only (local
 * development), with no path, query or trailing slash.
 */
const ORIGIN_PATTERN =
  /^(https:\/\/[a-z0-9.-]+(:[0-9]{1,5})?|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?)$/;

export const DEFAULT_THEME = { color: "#2563eb", dark: false };
export const DEFAULT_RATE_LIMIT = { requests: 60, window_seconds: 60 };

const themeSchema = z
  .object({
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, "must be a colour as #RRGGBB")
      .openapi({ example: "#2563eb" }),
    dark: z.boolean(),
  })
  .strict()
  .openapi("AppTheme");

const rateLimitSchema = z
  .object({
    requests: z.number().int().min(1).max(100_000),
    window_seconds: z.number().int().min(1).max(86_400),
  })
  .strict()
  .openapi("AppRateLimit", { description: "Requests (chat turns, runs) each end user may make per window" });

const allowedOrigins = z
  .array(
    z
      .string()
      .max(300)
      .regex(
        ORIGIN_PATTERN,
        "must be an origin such as https://example.com or https://shop.example.com:8443",
      ),
  )
  .max(50)
  .openapi({
    description:
      "Sites allowed to embed the app (CORS, and the web app's frame-ancestors). Empty: only the builder's own origin.",
  });

const appFields = {
  name: z.string().trim().min(1).max(100),
  slug: z.string().regex(SLUG_PATTERN, "must be 3–63 lower-case letters, digits and inner hyphens"),
  title: z.string().trim().min(1).max(100),
  description: z.string().max(2000),
  theme: themeSchema,
  starter_prompts: z.array(z.string().trim().min(1).max(300)).max(8),
  allowed_origins: allowedOrigins,
  rate_limit: rateLimitSchema.nullable(),
  end_user_credit_limit: z
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .nullable()
    .openapi({ description: "Credits each end user may spend per UTC day; null for no limit" }),
};

const target = z.string().max(64);

export const createAppBody = z
  .object({
    agent_id: target.optional().openapi({ description: "Publish this agent (or give workflow_id)" }),
    workflow_id: target.optional().openapi({ description: "Publish this workflow (or give agent_id)" }),
    ...appFields,
  })
  .strict()
  .partial({
    name: true,
    slug: true,
    title: true,
    description: true,
    theme: true,
    starter_prompts: true,
    allowed_origins: true,
    rate_limit: true,
    end_user_credit_limit: true,
  })
  .refine((body) => (body.agent_id === undefined) !== (body.workflow_id === undefined), {
    message: "give exactly one of agent_id and workflow_id",
    path: ["agent_id"],
  })
  .openapi("CreateAppRequest", {
    oneOf: [
      { required: ["agent_id"], not: { required: ["workflow_id"] } },
      { required: ["workflow_id"], not: { required: ["agent_id"] } },
    ],
  });

export const updateAppBody = patchBody(z.object(appFields).strict().partial()).openapi("UpdateAppRequest");

export type CreateAppInput = z.infer<typeof createAppBody>;
export type UpdateAppInput = z.infer<typeof updateAppBody>;

export const appSchema = z
  .object({
    id: z.string().openapi({ example: "app_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    kind: z.enum(["agent", "workflow"]),
    agent_id: z.string().nullable(),
    workflow_id: z.string().nullable(),
    name: z.string(),
    slug: z.string(),
    title: z.string(),
    description: z.string(),
    theme: themeSchema,
    starter_prompts: z.array(z.string()),
    allowed_origins: z.array(z.string()),
    rate_limit: rateLimitSchema.nullable(),
    end_user_credit_limit: z.number().int().nullable(),
    web_url: z.string().openapi({ description: "The hosted web app" }),
    embed: z.object({
      script_url: z.string(),
      snippet: z.string().openapi({ description: "The widget's script tag to paste into a page" }),
      iframe_snippet: z.string().openapi({ description: "The web app in an iframe" }),
    }),
    end_user_secret_hint: z.string().openapi({ description: "The end-user secret's last characters" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("App");

export const appWithSecretSchema = appSchema
  .extend({
    end_user_secret: z.string().openapi({
      description: "The HS256 key your server signs end-user tokens with. Shown once: store it now.",
    }),
  })
  .openapi("AppWithSecret");

export const appKeySchema = z
  .object({
    id: z.string(),
    app_id: z.string(),
    name: z.string(),
    prefix: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("AppKey");

export const createdAppKeySchema = appKeySchema
  .extend({ key: z.string().openapi({ description: "Shown once: it reaches only this app's public API" }) })
  .openapi("CreatedAppKey");

export const createAppKeyBody = z
  .object({ name: z.string().trim().min(1).max(100) })
  .strict()
  .openapi("CreateAppKeyRequest");

export const listAppsQuery = searchableListQuerySchema.extend({
  agent_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "agent_id", in: "query" }, description: "Only the apps of this agent" }),
  workflow_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "workflow_id", in: "query" }, description: "Only the apps of this workflow" }),
});

export type ListAppsQuery = z.infer<typeof listAppsQuery>;

export const appConversationsQuery = listQuerySchema.extend({
  end_user: z
    .string()
    .max(300)
    .optional()
    .openapi({
      param: { name: "end_user", in: "query" },
      description: "Only this end user's (their end_user_id)",
    }),
  rating: z
    .enum(["like", "dislike"])
    .optional()
    .openapi({
      param: { name: "rating", in: "query" },
      description: "Only conversations with an answer rated so",
    }),
});
