import { defineErrors } from "@app/http";

export const CredentialErrors = defineErrors({
  CREDENTIAL_NOT_FOUND: { status: 404, message: "No credential with this id." },
  BASE_URL_REQUIRED: { status: 422, message: "This provider needs a base_url (where its API is served)." },
  BASE_URL_REFUSED: { status: 422, message: "The base_url is not allowed." },
  NOT_A_PROVIDER_KEY: {
    status: 422,
    message: "This credential is an HTTP secret, not a provider key; only provider keys can be checked.",
  },
  CREDENTIAL_UNREADABLE: {
    status: 500,
    message:
      "The stored key cannot be decrypted (was SECRET_KEY changed?). Delete the credential and add it again.",
  },
});
