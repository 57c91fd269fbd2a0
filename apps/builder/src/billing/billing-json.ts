import { BILLING_CURRENCY, type CreditPack, type PriceTable, toAmount } from "./price-table.ts";
import type { LedgerRow, OrderRow } from "./schema.ts";

export function toPackJson(pack: CreditPack) {
  return { id: pack.id, credits: pack.credits, price: toAmount(pack.priceMinor), currency: BILLING_CURRENCY };
}

export function toOrderJson(row: OrderRow) {
  return {
    id: row.id,
    pack: row.packId,
    credits: row.credits,
    price: toAmount(row.amount),
    currency: row.currency,
    status: row.status,
    payment_id: row.paymentId,
    checkout_url: row.checkoutUrl,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    paid_at: row.paidAt?.toISOString() ?? null,
  };
}

export function toLedgerJson(row: LedgerRow) {
  return {
    id: row.id,
    kind: row.kind,
    credits: row.credits,
    description: row.description,
    order_id: row.orderId,
    details: row.details,
    created_at: row.createdAt.toISOString(),
  };
}

export function toPricesJson(prices: PriceTable) {
  return {
    tokens_per_million: Object.entries(prices.tokens).map(([model, price]) => ({
      model,
      input: price.input,
      output: price.output,
    })),
    generation: {
      image: prices.generations.image,
      video: prices.generations.video,
      models: prices.generations.models,
    },
    sandbox_second: prices.sandboxSecond,
  };
}
