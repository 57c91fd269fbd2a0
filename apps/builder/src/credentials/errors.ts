import { defineErrors } from "@app/http";

export const CredentialErrors = defineErrors({
  CREDENTIAL_NOT_FOUND: { status: 404, message: "No credential with this id." },
  BASE_URL_REQUIRED: { status: 422, message: "This provider needs a base_url (where its API is served)." },
  BASE_URL_REFUSED: { status: 422, message: "The base_url is not allowed." },
  CREDENTIAL_UNREADABLE: {
    status: 500,
    message:
      "The stored key cannot be decrypted (was SECRET_KEY changed?). Delete the credential and add it again.",
  },
});
