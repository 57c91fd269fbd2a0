import type { Clock } from "@app/core";
import { and, desc, eq } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { outboundFetch } from "../outbound/outbound-fetch.ts";
import { findProvider } from "../providers/catalogue.ts";
import { ProviderErrors } from "../providers/errors.ts";
import type { ProviderAccess } from "../providers/language-model.ts";
import { HTTP_SECRET_KIND } from "./contract.ts";
import { CredentialErrors } from "./errors.ts";
import { openCredential } from "./open-credential.ts";
import type { CredentialRow } from "./schema.ts";
import { credentials } from "./schema.ts";

export type ResolvedAccess = ProviderAccess & { credentialId: string | null };

/**
 * How to reach a provider for a workspace: the named credential, else the workspace's newest
 * credential for that provider, else the server-wide key from the environment. Answers 424
 * when there is none, so the caller learns what to configure.
 *
 * @example const access = await resolveProviderAccess(deps, workspaceId, { provider: "openai" });
 */
export async function resolveProviderAccess(
  { db, clock, config }: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  workspaceId: string,
  wanted: { provider: string; credentialId?: string | undefined },
): Promise<ResolvedAccess> {
  const [row] = await db
    .select()
    .from(credentials)
    .where(
      and(
        eq(credentials.workspaceId, workspaceId),
        wanted.credentialId
          ? eq(credentials.id, wanted.credentialId)
          : eq(credentials.provider, wanted.provider),
      ),
    )
    .orderBy(desc(credentials.id))
    .limit(1);
  if (wanted.credentialId && !row) throw CredentialErrors.CREDENTIAL_NOT_FOUND();
  return accessFromCredential({ db, clock, config }, wanted.provider, row);
}

/**
 * The access `resolveProviderAccess` answers, from the workspace's credential already looked up
 * (`undefined` when it has none for the provider): callers that load it together with something
 * else save a round trip.
 */
export async function accessFromCredential(
  { db, clock, config }: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  providerId: string,
  row: CredentialRow | undefined,
): Promise<ResolvedAccess> {
  if (row) {
    if (row.provider === HTTP_SECRET_KIND) throw CredentialErrors.NOT_A_PROVIDER_KEY();
    if (!findProvider(row.provider))
      throw CredentialErrors.NOT_A_PROVIDER_KEY({
        message: `This credential is a ${row.provider} key, not a key of a model provider.`,
      });
    const apiKey = await openCredential({ db, clock, config }, row);
    return {
      provider: row.provider,
      apiKey,
      baseUrl: row.baseUrl ?? undefined,
      // A stored base URL is user input: connect only where the outbound-URL policy allows.
      fetch: row.baseUrl ? outboundFetch({ allowPrivate: config.allowPrivateUrls }) : globalThis.fetch,
      credentialId: row.id,
    };
  }
  const serverKey = config.providerKeys[providerId];
  const provider = findProvider(providerId);
  if (!serverKey || !provider || provider.requires_base_url) {
    const variable = provider?.env_key ? ` or set ${provider.env_key} on the server` : "";
    throw ProviderErrors.PROVIDER_NOT_CONFIGURED({
      message: `There is no API key for ${provider?.name ?? providerId}: add one with POST /api/credentials${variable}.`,
    });
  }
  return {
    provider: providerId,
    apiKey: serverKey,
    baseUrl: undefined,
    fetch: globalThis.fetch,
    credentialId: null,
  };
}
