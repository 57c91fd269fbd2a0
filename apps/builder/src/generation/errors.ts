import { defineErrors } from "@app/http";

/** Errors of generation, the Replicate routes and the webhook. */
export const GenerationErrors = defineErrors({
  GENERATION_NOT_FOUND: { status: 404, message: "No generation with this id." },
  GENERATION_FINISHED: { status: 409, message: "The generation has already finished." },
  INVALID_INPUT: { status: 422, message: "The input does not match the model's input schema." },
  MODEL_NOT_FOUND: { status: 422, message: "Replicate has no such model or version." },
  REPLICATE_NOT_CONFIGURED: {
    status: 424,
    message:
      'Replicate is not configured: add a Replicate credential (Settings → Credentials, or POST /api/credentials with provider "replicate") or set REPLICATE_API_TOKEN on the server.',
  },
  REPLICATE_TOKEN_MISSING: {
    status: 424,
    message: "There is no Replicate token left to reach this generation's prediction with.",
  },
  REPLICATE_FAILED: { status: 502, message: "Replicate did not accept the request." },
  WEBHOOK_SIGNATURE_INVALID: {
    status: 401,
    message: "The webhook signature is missing, invalid or outside the 5-minute tolerance.",
  },
});
