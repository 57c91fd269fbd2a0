import { pathId } from "@app/http";
import { z } from "@hono/zod-openapi";
import { amountInput, currencyInput } from "../shared/money.ts";
import { limitQuery, startingAfterQuery } from "../shared/openapi.ts";
import { PAYMENT_METHODS } from "./providers.ts";

export const PAYMENT_STATUSES = [
  "pending",
  "processing",
  "succeeded",
  "failed",
  "expired",
  "refunded",
] as const;

export const createPaymentBody = z
  .object({
    amount: amountInput,
    currency: currencyInput,
    method: z.enum(PAYMENT_METHODS),
    description: z.string().max(1000).optional(),
    metadata: z.record(z.string().max(40), z.string().max(500)).optional(),
    return_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .openapi({
        description:
          "Where the hosted checkout sends the customer back, with `payment_id` and `status` in the query",
        example: "https://shop.example/orders/42",
      }),
    /** Seconds until an unpaid payment expires (default 24 h). */
    expires_in: z
      .number()
      .int()
      .min(60)
      .max(7 * 86_400)
      .default(86_400),
  })
  .strict()
  .openapi("CreatePaymentRequest");

export type CreatePaymentInput = z.infer<typeof createPaymentBody>;

export const listPaymentsQuery = z.object({
  limit: limitQuery,
  starting_after: startingAfterQuery("pay", "a payment"),
  status: z
    .enum(PAYMENT_STATUSES)
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
});

export const paymentSchema = z
  .object({
    id: z.string().openapi({ example: "pay_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    object: z.literal("payment"),
    status: z.enum(PAYMENT_STATUSES),
    amount: z.number(),
    currency: z.string(),
    method: z.string(),
    provider: z.string(),
    fee_amount: z.number(),
    net_amount: z.number(),
    amount_refunded: z.number(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    failure_reason: z.string().nullable(),
    environment: z.string(),
    checkout_url: z.string(),
    return_url: z.string().nullable(),
    expires_at: z.number().int(),
    created: z.number().int(),
  })
  .openapi("Payment");

export const PAYMENT_HELPER_ACTIONS = ["process", "succeed", "fail", "expire"] as const;
export type PaymentHelperAction = (typeof PAYMENT_HELPER_ACTIONS)[number];

/** `POST /v1/test_helpers/payments/{id}/{action}`: the payment and the move to simulate. */
export const paymentHelperParams = z.object({
  id: pathId("id"),
  action: z.enum(PAYMENT_HELPER_ACTIONS).openapi({ param: { name: "action", in: "path" } }),
});
