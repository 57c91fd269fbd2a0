import type { Clock } from "@app/core";
import { containsText, isUniqueViolation, newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { nextRevision, revisionCondition } from "../versions/revisions.ts";
import type { ListAppsQuery, UpdateAppInput } from "./contract.ts";
import { newEndUserSecret } from "./end-user-secret.ts";
import { AppErrors } from "./errors.ts";
import { type AppRow, apps } from "./schema.ts";

/**
 * The workspace's app with this id, or undefined.
 *
 * @example const app = await findApp(db, workspaceId, id);
 */
export async function findApp(db: BuilderDb, workspaceId: string, id: string): Promise<AppRow | undefined> {
  const [row] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.id, id), eq(apps.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

/**
 * The app at a public address, whatever its workspace: only for the public API and pages, where
 * the end user's token (or the page being public) is what grants access.
 *
 * @example const app = await findAppBySlug(db, "support-bot");
 */
export async function findAppBySlug(db: BuilderDb, slug: string): Promise<AppRow | undefined> {
  const [row] = await db.select().from(apps).where(eq(apps.slug, slug)).limit(1);
  return row;
}

/**
 * A page of the workspace's apps, newest first (`limit + 1` rows), optionally only one agent's or workflow's.
 *
 * @example const rows = await listApps(db, workspaceId, { limit: 20 });
 */
export function listApps(db: BuilderDb, workspaceId: string, query: ListAppsQuery): Promise<AppRow[]> {
  const newest = newestFirst(apps.id, query);
  return db
    .select()
    .from(apps)
    .where(
      and(
        eq(apps.workspaceId, workspaceId),
        query.agent_id === undefined ? undefined : eq(apps.agentId, query.agent_id),
        query.workflow_id === undefined ? undefined : eq(apps.workflowId, query.workflow_id),
        containsText([apps.name, apps.title, apps.description, apps.slug], query.q),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/**
 * Changes an app's settings; undefined when the workspace has no such app, 409 for a taken slug.
 *
 * @example const row = await updateApp({ db, clock }, workspaceId, id, { allowed_origins: ["https://shop.example.com"] });
 */
export async function updateApp(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  id: string,
  input: UpdateAppInput,
  expected?: Date[],
): Promise<AppRow | undefined> {
  try {
    const [row] = await db
      .update(apps)
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.slug === undefined ? {} : { slug: input.slug }),
        ...(input.title === undefined ? {} : { title: input.title }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.theme === undefined ? {} : { theme: input.theme }),
        ...(input.starter_prompts === undefined ? {} : { starterPrompts: input.starter_prompts }),
        ...(input.allowed_origins === undefined ? {} : { allowedOrigins: input.allowed_origins }),
        ...(input.rate_limit === undefined ? {} : { rateLimit: input.rate_limit }),
        ...(input.end_user_credit_limit === undefined
          ? {}
          : { endUserCreditLimit: input.end_user_credit_limit }),
        updatedAt: nextRevision(apps.updatedAt, clock.now()),
      })
      .where(
        and(eq(apps.id, id), eq(apps.workspaceId, workspaceId), revisionCondition(apps.updatedAt, expected)),
      )
      .returning();
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw AppErrors.SLUG_TAKEN({ param: "slug" });
    throw error;
  }
}

/**
 * Deletes an app with its keys and end users; its conversations and runs stay in the history.
 *
 * @example const isDeleted = await deleteApp(db, workspaceId, id);
 */
export async function deleteApp(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(apps)
    .where(and(eq(apps.id, id), eq(apps.workspaceId, workspaceId)))
    .returning({ id: apps.id });
  return deleted.length > 0;
}

/**
 * Replaces the end-user secret: tokens signed with the old one stop working at once. Answers the
 * new secret in the clear this once.
 *
 * @example const rotated = await rotateEndUserSecret(deps, workspaceId, id);
 */
export async function rotateEndUserSecret(
  deps: { db: BuilderDb; clock: Clock; config: { secretKey: string } },
  workspaceId: string,
  id: string,
): Promise<{ row: AppRow; endUserSecret: string } | undefined> {
  const secret = newEndUserSecret(deps.config.secretKey, { workspaceId, id });
  const [row] = await deps.db
    .update(apps)
    .set({
      endUserSecretSealed: secret.sealed,
      endUserSecretHint: secret.hint,
      updatedAt: nextRevision(apps.updatedAt, deps.clock.now()),
    })
    .where(and(eq(apps.id, id), eq(apps.workspaceId, workspaceId)))
    .returning();
  return row ? { row, endUserSecret: secret.secret } : undefined;
}
