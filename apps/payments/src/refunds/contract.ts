import { z } from "@hono/zod-openapi";
import { amountInput } from "../shared/money.ts";
import { limitQuery, startingAfterQuery } from "../shared/openapi.ts";

export const createRefundBody = z
  .object({ payment: z.string().max(64), amount: amountInput.optional() })
  .strict()
  .openapi("CreateRefundRequest");

export const refundSchema = z
  .object({
    id: z.string(),
    object: z.literal("refund"),
    payment: z.string(),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    failure_reason: z.string().nullable(),
    environment: z.string(),
    created: z.number().int(),
  })
  .openapi("Refund");

export const listRefundsQuery = z.object({
  limit: limitQuery,
  starting_after: startingAfterQuery("re", "a refund"),
  payment: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "payment", in: "query" } }),
});
