import { eq } from "drizzle-orm";
import { Hono } from "hono";
import QRCode from "qrcode";
import type { Deps } from "../deps.ts";
import { type Environment, merchants } from "../merchants/schema.ts";
import type { PaymentHelperAction } from "../payments/contract.ts";
import { findPaymentById } from "../payments/find-payment-by-id.ts";
import { type PaymentMethod, providerFor } from "../payments/providers.ts";
import type { PaymentStatus } from "../payments/schema.ts";
import { simulatePayment } from "../payments/simulate-payment.ts";
import { formTokens } from "../shared/form-token.ts";
import { checkoutPage, escapeHtml, PAGE_HEADERS, page } from "../shared/html.ts";
import { toAmount } from "../shared/money.ts";

const METHOD_LABELS: Record<PaymentMethod, string> = {
  qris: "QRIS",
  virtual_account: "Bank transfer (virtual account)",
  ewallet: "E-wallet",
  card: "Card",
  retail: "Retail outlet",
};

/** Each status in the customer's words: the word stays (colour only repeats it). */
const STATES: Record<PaymentStatus, { tone: "busy" | "ok" | "danger" | "neutral"; note: string }> = {
  pending: { tone: "busy", note: "" },
  processing: { tone: "busy", note: "Your payment is being confirmed." },
  succeeded: { tone: "ok", note: "Paid. Thank you: you can close this page." },
  failed: { tone: "danger", note: "The payment did not go through. Nothing was charged." },
  expired: {
    tone: "neutral",
    note: "This checkout has expired. Start again from the merchant.",
  },
  refunded: { tone: "neutral", note: "This payment was refunded." },
};

const formatter = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The hosted checkout page `/checkout/{id}`: amount, method, the provider's instructions (a QR code
 * for QRIS) and, in test mode, buttons that make the simulated provider pay or decline.
 *
 * @example app.route("/checkout", checkoutRoutes(deps));
 */
export function checkoutRoutes(deps: Deps) {
  const router = new Hono();
  // The buttons need no sign-in (whoever holds the link may simulate, in test mode only), but
  // another site must not press them through a visitor's browser.
  const simulateTokens = (id: string) =>
    formTokens({
      cookie: "checkout_form_token",
      path: `/checkout/${id}/simulate`,
      isSecure: deps.config.publicUrl.startsWith("https://"),
    });
  router.get("/:id", async (c) => {
    const payment = await findPaymentById(deps.db, c.req.param("id"));
    if (!payment) return c.html(page("Not found", "<h1>No such payment</h1>"), 404, PAGE_HEADERS);
    const provider = providerFor(payment.method as PaymentMethod);
    const isOpen = payment.status === "pending";
    let qr = "";
    if (payment.method === "qris" && isOpen) {
      // The simulated QRIS payload; a real provider returns its own string to encode.
      const payload = `00020101021226${payment.id}5303360540${toAmount(payment.amount)}5802ID6304`;
      const svg = await QRCode.toString(payload, { type: "svg", margin: 1, width: 240 });
      qr = `<p><img alt="QRIS code" width="240" height="240" src="data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}"></p>`;
    }
    const canSimulate =
      payment.environment === "test" && (payment.status === "pending" || payment.status === "processing");
    let buttons = "";
    if (canSimulate) {
      const tokens = simulateTokens(payment.id);
      const token = tokens.field(tokens.issue(c));
      const action = `/checkout/${escapeHtml(payment.id)}/simulate`;
      buttons = `<p class="muted">Test mode: nothing is charged.</p>
<form class="inline" method="post" action="${action}">${token}<input type="hidden" name="action" value="succeed"><button>Simulate payment</button></form>
<form class="inline" method="post" action="${action}">${token}<input type="hidden" name="action" value="fail"><button>Simulate failure</button></form>`;
    }
    const [merchant] = await deps.db
      .select({ name: merchants.name })
      .from(merchants)
      .where(eq(merchants.id, payment.merchantId))
      .limit(1);
    const state = STATES[payment.status as PaymentStatus] ?? { tone: "neutral", note: "" };
    const body = `<main class="checkout" aria-labelledby="title">
<header class="merchant"><span class="merchant-mark" aria-hidden="true">${escapeHtml((merchant?.name ?? "M").slice(0, 1).toUpperCase())}</span><span><span class="muted small">Pay to</span><br><strong>${escapeHtml(merchant?.name ?? "Merchant")}</strong></span>${payment.environment === "test" ? '<span class="test-badge">Test mode</span>' : ""}</header>
<section class="card">
<h1 id="title">${escapeHtml(payment.description ?? "Your order")}</h1>
<p class="amount">${escapeHtml(payment.currency)} ${escapeHtml(formatter.format(toAmount(payment.amount)))}</p>
<dl class="details">
<div><dt>Method</dt><dd>${escapeHtml(METHOD_LABELS[payment.method as PaymentMethod] ?? payment.method)}</dd></div>
<div><dt>Status</dt><dd><span class="status status-${state.tone}" id="status" role="status">${escapeHtml(payment.status)}</span></dd></div>
<div><dt>Reference</dt><dd><code>${escapeHtml(payment.id)}</code></dd></div>
</dl>
${state.note ? `<p class="state-note state-${state.tone}">${escapeHtml(state.note)}</p>` : ""}
${isOpen ? `<div class="instructions"><p>${escapeHtml(provider.instructions(payment))}</p>${qr}<p class="muted small">Pay before ${escapeHtml(payment.expiresAt.toISOString().replace("T", " ").slice(0, 16))} UTC.</p></div>` : ""}
${buttons ? `<div class="simulate">${buttons}</div>` : ""}
${payment.returnUrl ? `<p class="return"><a href="${escapeHtml(returnTo(payment))}">${isOpen ? "Cancel and return to the merchant" : "Return to the merchant"}</a></p>` : ""}
</section>
<p class="footer muted small">Secure checkout · no card or account data is stored by the merchant</p>
</main>`;
    return c.html(checkoutPage(`Checkout ${payment.id}`, body), 200, checkoutHeaders(payment.returnUrl));
  });

  router.post("/:id/simulate", async (c) => {
    const payment = await findPaymentById(deps.db, c.req.param("id"));
    if (!payment) return c.html(page("Not found", "<h1>No such payment</h1>"), 404, PAGE_HEADERS);
    // Simulation exists only in test mode; a live payment is moved by its real provider alone.
    if (payment.environment !== "test")
      return c.html(page("Forbidden", "<h1>Test mode only</h1>"), 403, PAGE_HEADERS);
    const form = await c.req.parseBody();
    if (!simulateTokens(payment.id).isValid(c, form)) {
      const body = `<h1>The page has expired</h1><p><a href="/checkout/${escapeHtml(payment.id)}">Reload the checkout</a> and try again.</p>`;
      return c.html(page("Expired", body), 403, PAGE_HEADERS);
    }
    const action = form.action === "fail" ? "fail" : form.action === "succeed" ? "succeed" : undefined;
    if (!action) return c.html(page("Bad request", "<h1>Unknown action</h1>"), 400, PAGE_HEADERS);
    const scope = { merchantId: payment.merchantId, environment: payment.environment as Environment };
    try {
      await simulatePayment(deps, scope, payment.id, action satisfies PaymentHelperAction);
    } catch (error) {
      deps.logger.debug({ err: error, payment: payment.id }, "checkout simulation refused");
      return c.html(
        page("Conflict", `<h1>The payment is already ${escapeHtml(payment.status)}</h1>`),
        409,
        PAGE_HEADERS,
      );
    }
    // Like a real provider's redirect after paying: straight back to the merchant when it said where.
    const settled = await findPaymentById(deps.db, payment.id);
    return c.redirect(settled?.returnUrl ? returnTo(settled) : `/checkout/${payment.id}`, 303);
  });
  return router;
}

/**
 * The page's headers: its form posts only to this service (`form-action 'self'`), and, when the
 * merchant gave a return URL, the redirect after posting may lead there (CSP checks redirects of a
 * form submission against `form-action` too).
 */
function checkoutHeaders(returnUrl: string | null): Record<string, string> {
  if (!returnUrl) return PAGE_HEADERS;
  const csp = PAGE_HEADERS["content-security-policy"].replace(
    "form-action 'self'",
    `form-action 'self' ${new URL(returnUrl).origin}`,
  );
  return { ...PAGE_HEADERS, "content-security-policy": csp };
}

/** The merchant's return URL with the payment's id and current status added to its query. */
function returnTo(payment: { id: string; status: string; returnUrl: string | null }): string {
  const url = new URL(payment.returnUrl ?? "");
  url.searchParams.set("payment_id", payment.id);
  url.searchParams.set("status", payment.status);
  return url.toString();
}
