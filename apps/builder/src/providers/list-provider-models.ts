import type { Clock } from "@app/core";
import type { ApiError } from "@app/http";
import type { BuilderConfig } from "../config.ts";
import { resolveProviderAccess } from "../credentials/resolve-provider-access.ts";
import type { BuilderDb } from "../db/index.ts";
import { type Capability, findProvider } from "./catalogue.ts";
import { ProviderErrors, providerApiError } from "./errors.ts";
import { listLiveModels } from "./list-live-models.ts";
import type { AiSettings } from "./settings.ts";

export interface ProviderModel {
  id: string;
  /** Known for catalogue models; empty for models only the live listing knows (capabilities unknown). */
  capabilities: Capability[];
  context_window?: number;
  source: "catalogue" | "live" | "both";
}

export interface ProviderModels {
  provider: string;
  data: ProviderModel[];
  /** `ok` when the provider's own listing was merged in; otherwise why not. */
  live: { status: "ok" | "not_configured" | "failed"; message: string | null };
}

/**
 * The catalogue's models for a provider merged with the provider's live listing, when the
 * workspace (or the server) has a key for it. A failing listing does not fail the answer:
 * the catalogue is still useful, and `live` says what went wrong.
 *
 * @example const models = await listProviderModels(deps, workspaceId, "openai");
 */
export async function listProviderModels(
  deps: { db: BuilderDb; clock: Clock; config: BuilderConfig; ai: AiSettings },
  workspaceId: string,
  providerId: string,
  credentialId?: string,
): Promise<ProviderModels> {
  const provider = findProvider(providerId);
  if (!provider) throw ProviderErrors.UNKNOWN_PROVIDER();
  const models = new Map<string, ProviderModel>(
    provider.models.map((model) => [
      model.id,
      { ...model, capabilities: [...model.capabilities], source: "catalogue" },
    ]),
  );
  let access: Awaited<ReturnType<typeof resolveProviderAccess>>;
  try {
    access = await resolveProviderAccess(deps, workspaceId, { provider: provider.id, credentialId });
  } catch (error) {
    if ((error as ApiError).code !== ProviderErrors.codes.PROVIDER_NOT_CONFIGURED) throw error;
    return {
      provider: provider.id,
      data: [...models.values()],
      live: { status: "not_configured", message: null },
    };
  }
  if (access.provider !== provider.id)
    throw ProviderErrors.UNKNOWN_PROVIDER({ message: "The credential is for another provider." });
  try {
    for (const id of await listLiveModels(access, AbortSignal.timeout(deps.ai.timeoutMs))) {
      const known = models.get(id);
      models.set(id, known ? { ...known, source: "both" } : { id, capabilities: [], source: "live" });
    }
    return { provider: provider.id, data: [...models.values()], live: { status: "ok", message: null } };
  } catch (error) {
    const message = providerApiError(error, { provider: provider.id, apiKey: access.apiKey }).message;
    return { provider: provider.id, data: [...models.values()], live: { status: "failed", message } };
  }
}
