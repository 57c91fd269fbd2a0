import { containsText, newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { agents } from "./schema.ts";

/** Newest first, only those matching `page.q` when given; fetches `limit + 1` rows so the caller can tell whether more exist. */
export function listAgents(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(agents.id, page);
  return db
    .select()
    .from(agents)
    .where(
      and(
        eq(agents.workspaceId, workspaceId),
        containsText([agents.name, agents.description], page.q),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
