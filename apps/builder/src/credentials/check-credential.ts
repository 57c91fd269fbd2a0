import type { Clock } from "@app/core";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { listLiveModels } from "../providers/list-live-models.ts";
import { ProviderErrors, providerApiError } from "../providers/provider-errors.ts";
import type { AiSettings } from "../providers/settings.ts";
import { resolveProviderAccess } from "./resolve-provider-access.ts";

/**
 * Checks a stored key with the provider's model listing: no tokens spent, and a refused key,
 * rate limit or unreachable endpoint comes back as the same answer a chat would get.
 *
 * @example const { model_count } = await checkCredential(deps, workspaceId, credentialId);
 */
export async function checkCredential(
  deps: { db: BuilderDb; clock: Clock; config: BuilderConfig; ai: AiSettings },
  workspaceId: string,
  credentialId: string,
): Promise<{ ok: true; provider: string; model_count: number; latency_ms: number }> {
  const access = await resolveProviderAccess(deps, workspaceId, { provider: "", credentialId });
  const started = performance.now();
  const signal = AbortSignal.timeout(deps.ai.timeoutMs);
  try {
    const ids = await listLiveModels(access, signal);
    return {
      ok: true,
      provider: access.provider,
      model_count: ids.length,
      latency_ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    if (signal.aborted) throw ProviderErrors.PROVIDER_TIMEOUT();
    throw providerApiError(error, { provider: access.provider, apiKey: access.apiKey });
  }
}
