import { and, desc, eq, inArray } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { PROVIDER_IDS, PROVIDERS } from "../providers/catalogue.ts";
import { credentials } from "./schema.ts";

/**
 * The model provider the workspace has set up: the provider of its newest stored key (HTTP secrets
 * and Replicate tokens are not model providers), else the first catalogue provider the server has a
 * key for, else null. What an agent gets when its creator names no provider, so a workspace whose
 * only key is Anthropic's does not get an OpenAI agent that fails on its first message.
 *
 * @example const provider = await configuredProvider(deps, workspaceId); // "anthropic"
 */
export async function configuredProvider(
  { db, config }: { db: BuilderDb; config: Pick<BuilderConfig, "providerKeys"> },
  workspaceId: string,
): Promise<string | null> {
  const [row] = await db
    .select({ provider: credentials.provider })
    .from(credentials)
    .where(and(eq(credentials.workspaceId, workspaceId), inArray(credentials.provider, PROVIDER_IDS)))
    .orderBy(desc(credentials.id))
    .limit(1);
  if (row) return row.provider;
  // A server key needs no base URL of its own to work: openai-compatible's cannot be used alone.
  const serverKeyed = PROVIDERS.find(
    (provider) => !provider.requires_base_url && config.providerKeys[provider.id],
  );
  return serverKeyed?.id ?? null;
}
