import { defineErrors } from "@app/http";

export const WebhookErrors = defineErrors({
  WEBHOOK_NOT_FOUND: { status: 404, message: "No webhook endpoint with this id." },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: "No delivery with this id for this webhook endpoint." },
  INVALID_WEBHOOK_URL: { status: 422, message: "The webhook URL is not allowed." },
  WEBHOOK_LIMIT_REACHED: {
    status: 409,
    message: "The workspace has the most webhook endpoints allowed; delete one first.",
  },
  DELIVERY_ALREADY_SCHEDULED: {
    status: 409,
    message: "The delivery is still scheduled; only delivered or failed deliveries can be replayed.",
  },
});
