import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { credentials } from "./schema.ts";

/**
 * The workspace's credentials, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listCredentials(db, workspaceId, { limit: 20 });
 */
export function listCredentials(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  return db
    .select()
    .from(credentials)
    .where(
      and(
        eq(credentials.workspaceId, workspaceId),
        page.cursor ? lt(credentials.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(credentials.id))
    .limit(page.limit + 1);
}
