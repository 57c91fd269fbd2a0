import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api } from "../api/client.ts";
import type {
  Billing,
  Checkout,
  LedgerEntry,
  CreditOrder as Order,
  CreditPrices as Prices,
} from "../api/schema.gen.ts";
import { navigate } from "../router.ts";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  ErrorBox,
  formatDate,
  Loading,
  PageHeader,
  QueryError,
  StatusBadge,
  type Tone,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";

type OrderStatus = Order["status"];

const PAYMENT_METHODS = [
  { id: "qris", label: "QRIS" },
  { id: "virtual_account", label: "Bank virtual account" },
  { id: "ewallet", label: "E-wallet" },
  { id: "card", label: "Card" },
  { id: "retail", label: "Retail store" },
] as const;

/** Where the order being paid is remembered while the payment service's checkout has the page. */
const PENDING_ORDER = "billing:pending-order";
/** How often the balance is read again while an order waits for the payment service's confirmation. */
const ORDER_POLL_MS = 2000;

const money = new Map<string, Intl.NumberFormat>();
/** A price in its currency; rupiah the Indonesian way (`Rp 50.000,00`). */
export function formatPrice(amount: number, currency: string): string {
  let format = money.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(currency === "IDR" ? "id-ID" : undefined, { style: "currency", currency });
    money.set(currency, format);
  }
  return format.format(amount);
}

const credits = new Intl.NumberFormat();

const ORDER_TONE: Record<OrderStatus, Tone> = {
  pending: "busy",
  paid: "ok",
  failed: "danger",
  expired: "neutral",
  refunded: "neutral",
};

/** Credits: the balance, packs to buy through the payment service's checkout, the ledger and the orders. */
export function BillingPage() {
  // The checkout's return link names the order too, for a return in another tab.
  const [awaited, setAwaited] = useState(
    () => sessionStorage.getItem(PENDING_ORDER) ?? new URLSearchParams(window.location.search).get("order"),
  );
  const billing = useQuery({
    queryKey: ["billing"],
    queryFn: () => api<Billing>("/api/billing"),
    // Coming back from the checkout (a new page load, or the back button's cached page) must show the new balance.
    refetchOnWindowFocus: true,
    refetchInterval: (query) =>
      query.state.data?.orders.some((order) => order.status === "pending" && order.id === awaited)
        ? ORDER_POLL_MS
        : false,
  });
  const [method, setMethod] = useState<(typeof PAYMENT_METHODS)[number]["id"]>("qris");
  const checkout = useMutation({
    mutationFn: (pack: string) =>
      api<Checkout>("/api/billing/checkout", {
        json: { pack, method },
      }),
    onSuccess: (answer) => {
      sessionStorage.setItem(PENDING_ORDER, answer.order.id);
      // The checkout is the payment service's own page: a full navigation, not a studio route.
      window.location.assign(answer.checkout_url);
    },
  });

  useEffect(() => {
    const refresh = (event: PageTransitionEvent) => {
      if (event.persisted) {
        setAwaited(sessionStorage.getItem(PENDING_ORDER));
        void billing.refetch();
      }
    };
    window.addEventListener("pageshow", refresh);
    return () => window.removeEventListener("pageshow", refresh);
  }, [billing.refetch]);

  const order = awaited ? billing.data?.orders.find((candidate) => candidate.id === awaited) : undefined;
  const isAwaitedDone = order !== undefined && order.status !== "pending";

  return (
    <>
      <PageHeader title="Billing" />
      <QueryError query={billing} />
      {billing.isPending ? <Loading what="your balance" /> : null}
      {order ? (
        <OrderNotice
          order={order}
          onDismiss={
            isAwaitedDone
              ? () => {
                  sessionStorage.removeItem(PENDING_ORDER);
                  // The checkout's return URL names the order (and payment): a reload must not bring the notice back.
                  navigate("/billing", { replace: true });
                  setAwaited(null);
                }
              : undefined
          }
        />
      ) : null}
      {billing.data ? (
        <div className="stack">
          <section className="card" aria-labelledby="balance-title">
            <h2 id="balance-title">Balance</h2>
            <p className="balance" data-testid="balance">
              {credits.format(billing.data.balance)} credits
            </p>
            <p className="muted">
              Model calls, generations and code runs spend credits.
              {billing.data.enforced
                ? " Work that would take the balance below zero is refused."
                : " This server does not stop work when the balance runs out."}
            </p>
            <PriceList prices={billing.data.prices} />
          </section>
          <section className="card" aria-labelledby="packs-title">
            <h2 id="packs-title">Buy credits</h2>
            <ErrorBox error={checkout.error} />
            {billing.data.packs.length === 0 ? <p className="muted">No credit packs are on sale.</p> : null}
            <label className="inline pay-with">
              Pay with
              <select value={method} onChange={(e) => setMethod(e.target.value as typeof method)}>
                {PAYMENT_METHODS.map((option) => (
                  <option key={option.id} value={option.id}>
                    {option.label}
                  </option>
                ))}
              </select>
            </label>
            <ul className="packs">
              {billing.data.packs.map((pack) => (
                <li key={pack.id} className="card pack" data-testid="pack">
                  <span className="pack-credits">{credits.format(pack.credits)} credits</span>
                  <span>{formatPrice(pack.price, pack.currency)}</span>
                  <Guarded needs="admin">
                    <Button
                      isBusy={checkout.isPending && checkout.variables === pack.id}
                      disabled={checkout.isPending}
                      onClick={() => checkout.mutate(pack.id)}
                      aria-label={`Buy ${credits.format(pack.credits)} credits for ${formatPrice(pack.price, pack.currency)}`}
                    >
                      Buy
                    </Button>
                  </Guarded>
                </li>
              ))}
            </ul>
            <p className="muted">You pay on the payment service's checkout page, then come back here.</p>
          </section>
          <Orders orders={billing.data.orders} />
          <Ledger entries={billing.data.ledger} />
        </div>
      ) : null}
    </>
  );
}

function OrderNotice({ order, onDismiss }: { order: Order; onDismiss: (() => void) | undefined }) {
  const text =
    order.status === "pending"
      ? "Waiting for the payment service to confirm your payment…"
      : order.status === "paid"
        ? `Payment received: ${credits.format(order.credits)} credits added.`
        : order.status === "failed"
          ? `The payment failed${order.failure_reason ? `: ${order.failure_reason}` : "."}`
          : `The order is ${order.status}.`;
  return (
    <div className={`notice notice-${ORDER_TONE[order.status]}`} role="status" data-testid="order-notice">
      <StatusBadge tone={ORDER_TONE[order.status]}>{order.status}</StatusBadge>
      <span>{text}</span>
      {order.status === "pending" && order.checkout_url ? (
        <a href={order.checkout_url}>Back to the checkout</a>
      ) : null}
      {onDismiss ? (
        <Button variant="secondary" onClick={onDismiss}>
          Dismiss
        </Button>
      ) : null}
    </div>
  );
}

function Orders({ orders }: { orders: Order[] }) {
  return (
    <section className="card" aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      {orders.length === 0 ? (
        <EmptyState title="No orders yet" />
      ) : (
        <DataTable label="Orders" columns={["Date", "Credits", "Price", "Status", ACTIONS]}>
          {orders.map((order) => (
            <tr key={order.id} data-testid="order-row">
              <td>{formatDate(order.created_at)}</td>
              <td>{credits.format(order.credits)}</td>
              <td className="nowrap">{formatPrice(order.price, order.currency)}</td>
              <td>
                <StatusBadge tone={ORDER_TONE[order.status]}>{order.status}</StatusBadge>
                {order.failure_reason ? <div className="field-error">{order.failure_reason}</div> : null}
              </td>
              <td className="cell-actions">
                {order.status === "pending" && order.checkout_url ? (
                  <a href={order.checkout_url}>Pay</a>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

function Ledger({ entries }: { entries: LedgerEntry[] }) {
  return (
    <section className="card" aria-labelledby="ledger-title">
      <h2 id="ledger-title">Ledger</h2>
      {entries.length === 0 ? (
        <EmptyState title="No credit movements yet" />
      ) : (
        <DataTable label="Ledger" columns={["Date", "What", { label: "Credits", className: "numeric" }]}>
          {entries.map((entry) => (
            <tr key={entry.id} data-testid="ledger-row">
              <td className="nowrap">{formatDate(entry.created_at)}</td>
              <td>
                {entry.description} <span className="muted">({entry.kind})</span>
              </td>
              <td className={`numeric ${entry.credits < 0 ? "amount-negative" : "amount-positive"}`}>
                {entry.credits > 0 ? "+" : ""}
                {credits.format(entry.credits)}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

function PriceList({ prices }: { prices: Prices }) {
  return (
    <details className="prices">
      <summary>What things cost</summary>
      <table aria-label="Prices">
        <thead>
          <tr>
            <th>Usage</th>
            <th className="numeric">Credits</th>
          </tr>
        </thead>
        <tbody>
          {prices.tokens_per_million.map((price) => (
            <tr key={price.model}>
              <td>
                <code>{price.model === "*" ? "any other model" : price.model}</code>, per million tokens in /
                out
              </td>
              <td className="numeric">
                {credits.format(price.input)} / {credits.format(price.output)}
              </td>
            </tr>
          ))}
          <tr>
            <td>An image generation</td>
            <td className="numeric">{credits.format(prices.generation.image)}</td>
          </tr>
          <tr>
            <td>A video generation</td>
            <td className="numeric">{credits.format(prices.generation.video)}</td>
          </tr>
          {Object.entries(prices.generation.models).map(([model, price]) => (
            <tr key={model}>
              <td>
                A generation with <code>{model}</code>
              </td>
              <td className="numeric">{credits.format(price)}</td>
            </tr>
          ))}
          <tr>
            <td>A second of code run time</td>
            <td className="numeric">{credits.format(prices.sandbox_second)}</td>
          </tr>
        </tbody>
      </table>
    </details>
  );
}
