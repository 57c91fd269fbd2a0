import { z } from "@hono/zod-openapi";
import { amountInput, currencyInput } from "../shared/money.ts";
import { limitQuery, startingAfterQuery } from "../shared/openapi.ts";

export const createPayoutBody = z
  .object({
    amount: amountInput,
    currency: currencyInput,
    destination: z
      .object({
        bank_code: z.string().regex(/^[A-Za-z0-9]{2,11}$/, "must be a bank code such as BCA or 014"),
        account_number: z.string().regex(/^\d{5,34}$/, "must be 5 to 34 digits"),
        account_name: z.string().trim().min(1).max(100),
      })
      .strict(),
  })
  .strict()
  .openapi("CreatePayoutRequest");

export const payoutSchema = z
  .object({
    id: z.string(),
    object: z.literal("payout"),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    destination: z.object({
      bank_code: z.string(),
      account_number_last4: z.string(),
      account_name: z.string(),
    }),
    failure_reason: z.string().nullable(),
    environment: z.string(),
    created: z.number().int(),
  })
  .openapi("Payout");

export const listPayoutsQuery = z.object({
  limit: limitQuery,
  starting_after: startingAfterQuery("po", "a payout"),
});
