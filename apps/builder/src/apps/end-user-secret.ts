import { newSecretToken } from "@app/core";
import { credentialKey, decryptSecret, encryptSecret } from "../credentials/encryption.ts";

/** The end-user secret is sealed under the credentials key, bound to its app and workspace. */
const context = (app: { workspaceId: string; id: string }) => `apps/${app.workspaceId}/${app.id}`;

/**
 * A new end-user secret, sealed for storage, with the hint people tell it apart by.
 *
 * @example const { secret, sealed, hint } = newEndUserSecret(config.secretKey, { workspaceId, id });
 */
export function newEndUserSecret(masterSecret: string, app: { workspaceId: string; id: string }) {
  const secret = newSecretToken("eus");
  return {
    secret,
    sealed: encryptSecret(credentialKey(masterSecret), secret, context(app)),
    hint: `…${secret.slice(-4)}`,
  };
}

/**
 * The app's end-user secret in the clear, to verify the tokens host sites sign with it.
 *
 * @example const secret = openEndUserSecret(config.secretKey, app);
 */
export function openEndUserSecret(
  masterSecret: string,
  app: { workspaceId: string; id: string; endUserSecretSealed: string },
): string {
  return decryptSecret(credentialKey(masterSecret), app.endUserSecretSealed, context(app));
}
