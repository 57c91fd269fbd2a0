import { defineErrors } from "@app/http";

export const WebhookErrors = defineErrors({
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: "No webhook endpoint with this id." },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: "No webhook delivery with this id." },
  INVALID_WEBHOOK_URL: { status: 422, message: "The webhook URL is not allowed." },
  DELIVERY_ALREADY_SCHEDULED: {
    status: 409,
    message: "The delivery is still scheduled; only delivered or failed deliveries can be replayed.",
  },
});
