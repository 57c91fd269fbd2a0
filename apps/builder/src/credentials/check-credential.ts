import type { Clock } from "@app/core";
import { and, eq } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { checkReplicateToken } from "../generation/check-replicate-token.ts";
import { ProviderErrors, providerApiError } from "../providers/errors.ts";
import { listLiveModels } from "../providers/list-live-models.ts";
import type { AiSettings } from "../providers/settings.ts";
import { REPLICATE_KIND } from "./contract.ts";
import { CredentialErrors } from "./errors.ts";
import { openCredential } from "./open-credential.ts";
import { resolveProviderAccess } from "./resolve-provider-access.ts";
import { credentials } from "./schema.ts";

export interface CredentialCheck {
  ok: true;
  provider: string;
  model_count: number | null;
  account: string | null;
  latency_ms: number;
}

/**
 * Checks a stored key with a call that spends nothing: the provider's model listing, or for a
 * Replicate token its account. A refused key, rate limit or unreachable endpoint comes back as the
 * same answer a chat would get.
 *
 * @example const { model_count } = await checkCredential(deps, workspaceId, credentialId);
 */
export async function checkCredential(
  deps: { db: BuilderDb; clock: Clock; config: BuilderConfig; ai: AiSettings },
  workspaceId: string,
  credentialId: string,
): Promise<CredentialCheck> {
  const [row] = await deps.db
    .select()
    .from(credentials)
    .where(and(eq(credentials.workspaceId, workspaceId), eq(credentials.id, credentialId)))
    .limit(1);
  if (!row) throw CredentialErrors.CREDENTIAL_NOT_FOUND();
  const signal = AbortSignal.timeout(deps.ai.timeoutMs);
  if (row.provider === REPLICATE_KIND) {
    const token = await openCredential(deps, row);
    const started = performance.now();
    const { account } = await checkReplicateToken(deps.config, token, signal);
    return { ok: true, provider: row.provider, model_count: null, account, latency_ms: since(started) };
  }
  const access = await resolveProviderAccess(deps, workspaceId, { provider: "", credentialId });
  const started = performance.now();
  try {
    const ids = await listLiveModels(access, signal);
    return {
      ok: true,
      provider: access.provider,
      model_count: ids.length,
      account: null,
      latency_ms: since(started),
    };
  } catch (error) {
    if (signal.aborted) throw ProviderErrors.PROVIDER_TIMEOUT();
    throw providerApiError(error, { provider: access.provider, apiKey: access.apiKey });
  }
}

function since(started: number): number {
  return Math.round(performance.now() - started);
}
