import { createRouter, errorResponses, jsonContent, toPage } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { requires } from "../workspaces/roles.ts";
import { toAuditJson } from "./audit-json.ts";
import { auditExportQuery, auditList, auditQuery } from "./contract.ts";
import { listAuditLog } from "./list-audit-log.ts";

const listRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["audit log"],
  summary: "Who did what in the workspace and when, newest first",
  ...requires("admin"),
  request: { query: auditQuery },
  responses: {
    200: { description: "A page of entries", content: jsonContent(auditList) },
    ...errorResponses(401, 403, 404, 422),
  },
});

const exportRoute = createRoute({
  method: "get",
  path: "/export",
  tags: ["audit log"],
  summary: "Every entry as JSON Lines (one AuditEntry per line, oldest first), for archiving",
  ...requires("admin"),
  request: { query: auditExportQuery },
  responses: {
    200: {
      description: "application/x-ndjson",
      content: { "application/x-ndjson": { schema: z.string() } },
    },
    ...errorResponses(401, 403, 404, 422),
  },
});

const EXPORT_PAGE = 500;

/** `/api/audit-log`: the workspace's audit log for admins, as pages or a JSON Lines export. */
export function auditRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listAuditLog(deps.db, c.get("principal").workspaceId, {
      limit: query.limit,
      cursor: query.cursor,
      action: query.action,
      since: query.since ? new Date(query.since) : undefined,
    });
    return c.json(toPage(rows, query.limit, toAuditJson), 200);
  });
  router.openapi(exportRoute, async (c) => {
    const { workspaceId } = c.get("principal");
    const since = c.req.valid("query").since;
    // Pages newest first, written oldest first: the file reads as the history happened.
    const lines: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const rows = await listAuditLog(deps.db, workspaceId, {
        limit: EXPORT_PAGE,
        cursor,
        since: since ? new Date(since) : undefined,
      });
      const page = rows.slice(0, EXPORT_PAGE);
      for (const row of page) lines.push(JSON.stringify(toAuditJson(row)));
      if (rows.length <= EXPORT_PAGE) break;
      cursor = page.at(-1)?.id;
    }
    lines.reverse();
    c.header("content-disposition", `attachment; filename="audit-log-${workspaceId}.jsonl"`);
    const text = lines.length > 0 ? `${lines.join("\n")}\n` : "";
    return c.body(text, 200, { "content-type": "application/x-ndjson" }) as never;
  });
  return router;
}
