/** The ledger reference of an order's purchase. */
export function purchaseReference(orderId: string): string {
  return `order:${orderId}:purchase`;
}

/** The ledger reference of an order's refund. */
export function refundReference(orderId: string): string {
  return `order:${orderId}:refund`;
}
