import { z } from "@hono/zod-openapi";

/** Headers the transport sets itself, or that would change what the connection is. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "must be an HTTP header name")
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), {
    message: "is set by the MCP transport itself",
  });

export const createMcpServerBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .openapi({ example: "https://mcp.example.com/mcp", description: "The server's MCP endpoint" }),
    transport: z.enum(["auto", "streamable_http", "sse"]).default("auto").openapi({
      description:
        "`auto` tries Streamable HTTP and falls back to the older HTTP+SSE transport when the server answers 4xx",
    }),
    bearer_token: z
      .string()
      .trim()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: "Sent as `Authorization: Bearer …`; stored encrypted, never shown again" }),
    oauth: z.boolean().default(false).openapi({
      description:
        "The server requires OAuth 2.1: after creating it, POST /api/mcp-servers/{id}/authorize and send the person to the answered URL",
    }),
    headers: z
      .record(headerName, z.string().max(10_000))
      .refine((headers) => Object.keys(headers).length <= 20, { message: "at most 20 headers" })
      .optional()
      .meta({
        description:
          "Sent with every request; stored encrypted, only their names are shown. Names the MCP transport sets itself (content-type, accept, mcp-session-id, …) are refused",
        propertyNames: { pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$" },
      }),
  })
  .strict()
  .refine(
    (body) =>
      !body.bearer_token ||
      !Object.keys(body.headers ?? {}).some((name) => name.toLowerCase() === "authorization"),
    { message: "give either bearer_token or an Authorization header", path: ["bearer_token"] },
  )
  .refine((body) => !(body.oauth && body.bearer_token), {
    message: "give either bearer_token or oauth",
    path: ["oauth"],
  })
  .openapi("CreateMcpServerRequest", {
    // The second refinement as JSON Schema (the first, an Authorization header beside bearer_token,
    // compares header names case-insensitively, which JSON Schema cannot; the header says so).
    anyOf: [
      { not: { required: ["bearer_token"] } },
      { not: { required: ["oauth"] } },
      { properties: { oauth: { const: false } } },
    ],
  });

export const mcpAuthorizationSchema = z
  .object({
    authorization_url: z
      .string()
      .openapi({ description: "Send the person here; the authorization server calls the builder back" }),
  })
  .openapi("McpAuthorization");

export const oauthCallbackQuery = z.object({
  code: z.string().min(1).max(4096),
  state: z.string().min(1).max(512),
});

export const mcpToolSchema = z
  .object({
    name: z.string(),
    title: z.string().nullable(),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema of the arguments" }),
  })
  .openapi("McpTool");

export const mcpServerSchema = z
  .object({
    id: z.string().openapi({ example: "mcp_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    name: z.string(),
    url: z.string(),
    transport: z.enum(["auto", "streamable_http", "sse"]),
    auth: z.enum(["none", "bearer", "headers", "oauth"]),
    header_names: z.array(z.string()),
    secret_hint: z.string().nullable().openapi({ description: "The end of the bearer token, e.g. `…a1b2`" }),
    tools: z
      .array(mcpToolSchema)
      .nullable()
      .openapi({ description: "The tools listed the last time the server was reached; null before" }),
    tools_checked_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("McpServer");

export const mcpServerCheckSchema = z
  .object({
    ok: z.literal(true),
    transport: z.enum(["streamable_http", "sse"]).openapi({ description: "The transport that worked" }),
    server: z.object({ name: z.string(), version: z.string() }).nullable(),
    tools: z.array(mcpToolSchema),
    latency_ms: z.number().int(),
  })
  .openapi("McpServerCheck");

export type CreateMcpServerInput = z.infer<typeof createMcpServerBody>;
