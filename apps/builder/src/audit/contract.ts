import { listQuerySchema } from "@app/http";
import { z } from "@hono/zod-openapi";

export const auditEntrySchema = z
  .object({
    id: z.string().openapi({ example: "aud_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    action: z.string().openapi({ example: "member.role_changed" }),
    actor: z.object({
      user_id: z.string().nullable(),
      email: z.string().nullable(),
      via: z.string().openapi({ description: "session or api_key" }),
    }),
    target_id: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).openapi({
      description: "The route, its path parameters and the plain fields of the request (never secrets)",
    }),
    request_id: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("AuditEntry");

export const auditList = z
  .object({ data: z.array(auditEntrySchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("AuditLogPage");

const since = z
  .string()
  .datetime({ offset: true })
  .optional()
  .openapi({ param: { name: "since", in: "query" }, description: "Only entries at or after this time" });

export const auditQuery = listQuerySchema.extend({
  action: z
    .string()
    .max(100)
    .optional()
    .openapi({ param: { name: "action", in: "query" }, description: "Only this action" }),
  since,
});

export const auditExportQuery = z.object({ since });
