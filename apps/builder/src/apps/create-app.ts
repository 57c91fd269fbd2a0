import { type Clock, newId } from "@app/core";
import { isUniqueViolation } from "@app/db";
import { findAgent } from "../agents/find-agent.ts";
import type { BuilderDb } from "../db/index.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import { type CreateAppInput, DEFAULT_RATE_LIMIT, DEFAULT_THEME } from "./contract.ts";
import { newEndUserSecret } from "./end-user-secret.ts";
import { AppErrors } from "./errors.ts";
import { type AppRow, apps } from "./schema.ts";

const SLUG_SUFFIX_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";

/**
 * Publishes the workspace's agent or workflow as an app. A slug is made from the name when none is
 * given; a taken one answers 409. The end-user secret is returned in the clear this once.
 *
 * @example const { row, endUserSecret } = await createApp(deps, workspaceId, { agent_id: "agt_…" });
 */
export async function createApp(
  deps: { db: BuilderDb; clock: Clock; config: { secretKey: string } },
  workspaceId: string,
  input: CreateAppInput,
): Promise<{ row: AppRow; endUserSecret: string }> {
  const { db, clock } = deps;
  const target = input.agent_id
    ? await findAgent(db, workspaceId, input.agent_id)
    : input.workflow_id
      ? await findWorkflow(db, workspaceId, input.workflow_id)
      : undefined;
  if (!target) throw AppErrors.TARGET_NOT_FOUND({ param: input.agent_id ? "agent_id" : "workflow_id" });
  const now = clock.now();
  const id = newId("app", now.getTime());
  const secret = newEndUserSecret(deps.config.secretKey, { workspaceId, id });
  const name = input.name ?? target.name;
  try {
    const [row] = await db
      .insert(apps)
      .values({
        id,
        workspaceId,
        kind: input.agent_id ? "agent" : "workflow",
        agentId: input.agent_id ?? null,
        workflowId: input.workflow_id ?? null,
        name,
        slug: input.slug ?? generatedSlug(name),
        title: input.title ?? name,
        description: input.description ?? target.description,
        theme: input.theme ?? DEFAULT_THEME,
        starterPrompts: input.starter_prompts ?? [],
        allowedOrigins: input.allowed_origins ?? [],
        rateLimit: input.rate_limit === undefined ? DEFAULT_RATE_LIMIT : input.rate_limit,
        endUserCreditLimit: input.end_user_credit_limit ?? null,
        endUserSecretSealed: secret.sealed,
        endUserSecretHint: secret.hint,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("insert returned no row");
    return { row, endUserSecret: secret.secret };
  } catch (error) {
    if (isUniqueViolation(error)) throw AppErrors.SLUG_TAKEN({ param: "slug" });
    throw error;
  }
}

/**
 * A slug from a name: its letters and digits joined by hyphens, and a random suffix so two apps of
 * the same name (in any workspace) do not collide.
 *
 * @example generatedSlug("Support Bot") // "support-bot-x7k2qa"
 */
export function generatedSlug(name: string): string {
  const base = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  const suffix = Array.from(bytes, (byte) => SLUG_SUFFIX_ALPHABET[byte % SLUG_SUFFIX_ALPHABET.length]).join(
    "",
  );
  return base ? `${base}-${suffix}` : `app-${suffix}`;
}
