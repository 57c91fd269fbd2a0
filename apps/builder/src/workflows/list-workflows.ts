import { containsText, newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { workflows } from "./schema.ts";

export function listWorkflows(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(workflows.id, page);
  return db
    .select()
    .from(workflows)
    .where(
      and(
        eq(workflows.workspaceId, workspaceId),
        containsText([workflows.name, workflows.description], page.q),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
