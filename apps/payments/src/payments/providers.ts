/** The payment methods; extendable by adding a route and a fee here. */
export const PAYMENT_METHODS = ["qris", "virtual_account", "ewallet", "card", "retail"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/**
 * A payment provider: where a method is routed and what it charges. The simulated providers stand
 * in for the real ones (no real provider is reachable); a real adapter implements the same shape.
 */
export interface ProviderAdapter {
  name: string;
  /** The fee in minor units for an amount in minor units (never more than the amount). */
  fee(amount: bigint): bigint;
  /** What the hosted checkout page tells the customer to do. */
  instructions(payment: { id: string; amount: bigint; currency: string }): string;
}

/** A percentage in basis points (70 = 0.7 %), rounded half up to a whole minor unit. */
function percent(basisPoints: bigint, fixed = 0n) {
  return (amount: bigint) => {
    const fee = (amount * basisPoints + 5_000n) / 10_000n + fixed;
    return fee > amount ? amount : fee;
  };
}

function flat(minor: bigint) {
  return (amount: bigint) => (minor > amount ? amount : minor);
}

const simulated: Record<PaymentMethod, ProviderAdapter> = {
  qris: {
    name: "sim-qris",
    fee: percent(70n),
    instructions: () => "Scan the QR code with any banking or e-wallet app that supports QRIS.",
  },
  virtual_account: {
    name: "sim-va",
    fee: flat(400_000n),
    instructions: (payment) =>
      `Transfer the exact amount to virtual account 8808${payment.id.slice(-10).toUpperCase()} from any bank.`,
  },
  ewallet: {
    name: "sim-ewallet",
    fee: percent(150n),
    instructions: () => "Approve the payment in your e-wallet app.",
  },
  card: {
    name: "sim-card",
    fee: percent(290n, 200_000n),
    instructions: () => "Enter your card details.",
  },
  retail: {
    name: "sim-retail",
    fee: flat(500_000n),
    instructions: (payment) => `Pay at any partner store with code ${payment.id.slice(-8).toUpperCase()}.`,
  },
};

/**
 * The routing rule: the provider that handles a method.
 *
 * @example providerFor("qris").fee(10_000_000n) // 70_000n (0.7 %)
 */
export function providerFor(method: PaymentMethod): ProviderAdapter {
  return simulated[method];
}
