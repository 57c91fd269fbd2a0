import { defineErrors } from "@app/http";

export const AppErrors = defineErrors({
  APP_NOT_FOUND: { status: 404, message: "No app with this id." },
  APP_KEY_NOT_FOUND: { status: 404, message: "No app key with this id." },
  SLUG_TAKEN: { status: 409, message: "Another app already has this slug; choose another." },
  TARGET_NOT_FOUND: { status: 422, message: "The app's agent or workflow is not in this workspace." },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: "This site is not allowed to use the app. Add its origin to the app's allowed_origins.",
  },
  END_USER_UNAUTHENTICATED: {
    status: 401,
    message:
      "Send an end-user token as `Authorization: Bearer <token>`: one from POST /api/public/apps/{slug}/session, a JWT signed with the app's end-user secret, or an app key with `X-End-User`.",
  },
  END_USER_RATE_LIMITED: { status: 429, message: "Too many requests from this end user; try again later." },
  END_USER_LIMIT_REACHED: {
    status: 402,
    message: "This end user has used today's credit allowance of the app.",
  },
  WRONG_APP_KIND: { status: 404, message: "This app does not serve this route." },
  MESSAGE_NOT_FOUND: { status: 404, message: "No answer with this id in your conversations." },
});
