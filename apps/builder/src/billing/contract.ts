import { z } from "@hono/zod-openapi";
import { PAYMENT_METHODS } from "./create-checkout.ts";

export const checkoutBody = z
  .object({
    pack: z.string().min(1).max(40).openapi({ example: "pack_50k" }),
    method: z
      .enum(PAYMENT_METHODS)
      .optional()
      .openapi({ description: "How the customer pays on the hosted checkout; default qris" }),
  })
  .strict()
  .openapi("CheckoutRequest");

export const packSchema = z
  .object({
    id: z.string().openapi({ example: "pack_50k" }),
    credits: z.number().int().openapi({ example: 50_000 }),
    price: z.number().openapi({ example: 50_000, description: "In `currency`, at most two decimals" }),
    currency: z.string().openapi({ example: "IDR" }),
  })
  .openapi("CreditPack");

export const orderSchema = z
  .object({
    id: z.string().openapi({ example: "ord_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    pack: z.string(),
    credits: z.number().int(),
    price: z.number(),
    currency: z.string(),
    status: z.enum(["pending", "paid", "failed", "expired", "refunded"]),
    payment_id: z.string().nullable(),
    checkout_url: z.string().nullable(),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    paid_at: z.string().nullable(),
  })
  .openapi("CreditOrder");

export const ledgerEntrySchema = z
  .object({
    id: z.string(),
    kind: z.enum(["starter", "purchase", "refund", "usage"]),
    credits: z.number().int().openapi({ description: "Positive adds credits, negative spends them" }),
    description: z.string(),
    order_id: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).openapi({
      description:
        "What was metered (`meter`: llm_tokens, generation, sandbox, with its quantities) or bought",
    }),
    created_at: z.string(),
  })
  .openapi("LedgerEntry");

export const pricesSchema = z
  .object({
    tokens_per_million: z.array(
      z.object({
        model: z.string().openapi({ description: "`provider/model`, `provider/*` or `*`" }),
        input: z.number().int(),
        output: z.number().int(),
      }),
    ),
    generation: z.object({
      image: z.number().int(),
      video: z.number().int(),
      models: z.record(z.string(), z.number().int()),
    }),
    sandbox_second: z.number().int(),
  })
  .openapi("CreditPrices", { description: "What usage costs, in credits" });

export const billingSchema = z
  .object({
    balance: z.number().int().openapi({ description: "Credits: the sum of the ledger" }),
    enforced: z.boolean().openapi({ description: "Whether work that would overdraw is refused with 402" }),
    packs: z.array(packSchema),
    prices: pricesSchema,
    ledger: z.array(ledgerEntrySchema).openapi({ description: "The newest entries" }),
    orders: z.array(orderSchema).openapi({ description: "The newest orders" }),
  })
  .openapi("Billing");

export const checkoutSchema = z
  .object({
    order: orderSchema,
    payment_id: z.string(),
    checkout_url: z.string().openapi({ description: "The payment service's hosted checkout page" }),
  })
  .openapi("Checkout");

export const webhookAnswerSchema = z
  .object({
    received: z.literal(true),
    outcome: z.enum(["applied", "duplicate", "ignored", "unknown_order"]),
  })
  .openapi("PaymentWebhookAnswer");

/** The payment service's signature of an event it sends (`t=<unix>,v1=<hex>`). */
export const serviceSignatureHeaders = z.object({
  "x-service-signature": z
    .string()
    .optional()
    .openapi({ param: { name: "x-service-signature", in: "header" }, example: "t=1767225600,v1=5f2b…" }),
});
