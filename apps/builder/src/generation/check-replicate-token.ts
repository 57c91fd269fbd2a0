import type { BuilderConfig } from "../config.ts";
import { ProviderErrors } from "../providers/errors.ts";
import { newReplicateClient, replicateErrorInfo } from "./replicate-access.ts";

/**
 * Checks a Replicate token with the cheapest authenticated call, the token's account (nothing is run
 * or spent), at the server's REPLICATE_BASE_URL. A refused token is the same 424
 * `provider_rejected_credentials` a refused provider key is; a rate limit 429, no answer 502 or 504.
 *
 * @example const { account } = await checkReplicateToken(config, "r8_…", AbortSignal.timeout(30_000));
 */
export async function checkReplicateToken(
  config: BuilderConfig,
  token: string,
  signal: AbortSignal,
): Promise<{ account: string }> {
  try {
    const account = await newReplicateClient(config, token).accounts.current({ signal });
    return { account: account.username };
  } catch (error) {
    if (signal.aborted)
      throw ProviderErrors.PROVIDER_TIMEOUT({ message: "Replicate did not answer in time." });
    const info = replicateErrorInfo(error);
    if (!info) {
      const message = error instanceof Error ? error.message : String(error);
      throw ProviderErrors.PROVIDER_UNREACHABLE({
        message: `Replicate could not be reached: ${message.split(token).join("[redacted]")}`,
      });
    }
    const detail = info.detail.split(token).join("[redacted]");
    if (info.status === 401 || info.status === 403)
      throw ProviderErrors.PROVIDER_REJECTED_CREDENTIALS({
        message: `Replicate rejected the API token: ${detail}`,
      });
    if (info.status === 429)
      throw ProviderErrors.PROVIDER_RATE_LIMITED({
        message: `Replicate is rate limiting requests: ${detail}`,
      });
    throw ProviderErrors.PROVIDER_ERROR({ message: `Replicate answered ${info.status}: ${detail}` });
  }
}
