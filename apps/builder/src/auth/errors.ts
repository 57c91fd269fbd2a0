import { defineErrors } from "@app/http";

export const AuthErrors = defineErrors({
  EMAIL_TAKEN: {
    status: 409,
    message: "An account with this e-mail address already exists. Sign in instead.",
  },
  INVALID_CREDENTIALS: { status: 401, message: "The e-mail address or password is wrong." },
  INVALID_API_KEY: { status: 401, message: "The API key is not valid, was revoked or has expired." },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: "Requests authenticated by cookie must come from the studio's origin (send an Origin header).",
  },
  EMAIL_NOT_VERIFIED: {
    status: 403,
    message:
      "Confirm your e-mail address first: open the link in the e-mail we sent (a new one is on its way), or ask again with POST /api/auth/send-verification-email.",
  },
  TOO_MANY_ATTEMPTS: { status: 429, message: "Too many attempts. Wait before trying again." },
});
