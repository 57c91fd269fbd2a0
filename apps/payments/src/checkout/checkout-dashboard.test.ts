import { startTestReceiver, type TestReceiver } from "@app/webhooks/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";
import { webhookDeliveries } from "../db/schema.ts";

let payments: TestPayments;
let receiver: TestReceiver;
beforeAll(async () => {
  payments = await startTestPayments();
  receiver = await startTestReceiver({ answer: () => 500 });
});
afterAll(async () => {
  await receiver?.close();
  await payments?.stop();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe("hosted checkout", () => {
  it("shows amount, method, a QR code for QRIS and test-mode buttons that move the payment", async () => {
    const payment = await json<{ id: string; checkout_url: string }>(
      await payments.request("/v1/payments", {
        method: "POST",
        json: { amount: 150000.5, method: "qris", description: "Kopi <b>" },
      }),
    );
    expect(payment.checkout_url).toBe(`${payments.url}/checkout/${payment.id}`);
    const page = await fetch(payment.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain("IDR 150,000.50");
    expect(html).toContain("Kopi &#60;b&#62;");
    expect(html).toContain('alt="QRIS code"');
    expect(html).toContain("data:image/svg+xml;base64,");
    expect(html).toContain("Simulate payment");
    expect(html).toContain("Simulate failure");
    const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const token = /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const simulate = (fields: Record<string, string>, withCookie = cookie) =>
      fetch(`${payments.url}/checkout/${payment.id}/simulate`, {
        method: "POST",
        headers: { cookie: withCookie, "content-type": "application/x-www-form-urlencoded" },
        body: form(fields),
        redirect: "manual",
      });

    // Another site posting the form through a visitor's browser has no token cookie.
    const forged = await simulate({ action: "succeed", form_token: token }, "");
    expect(forged.status).toBe(403);
    const guessed = await simulate({ action: "succeed", form_token: "guessed" });
    expect(guessed.status).toBe(403);
    expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toMatchObject({
      status: "pending",
    });

    const paid = await simulate({ action: "succeed", form_token: token });
    expect(paid.status).toBe(303);
    expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toMatchObject({
      status: "succeeded",
    });
    const after = await (await fetch(payment.checkout_url)).text();
    expect(after).not.toContain("Simulate payment");
    const again = await simulate({ action: "fail", form_token: token });
    expect(again.status).toBe(409);
  });

  it("sends the customer back to the merchant's return_url after paying; refuses a non-http one", async () => {
    const refused = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 1000, method: "qris", return_url: "javascript:alert(1)" },
    });
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({ error: { param: "return_url" } });

    const payment = await json<{ id: string; checkout_url: string; return_url: string }>(
      await payments.request("/v1/payments", {
        method: "POST",
        json: { amount: 1000, method: "qris", return_url: "https://shop.example/orders/42?ref=a" },
      }),
    );
    expect(payment.return_url).toBe("https://shop.example/orders/42?ref=a");
    const page = await fetch(payment.checkout_url);
    const html = await page.text();
    expect(html).toContain("Cancel and return to the merchant");
    // The browser may follow the form's redirect to the merchant: its origin is allowed as a form target.
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' https://shop.example;");
    const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const token = /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const paid = await fetch(`${payments.url}/checkout/${payment.id}/simulate`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: form({ action: "succeed", form_token: token }),
      redirect: "manual",
    });
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe("https://shop.example/orders/42");
    expect(back.searchParams.get("ref")).toBe("a");
    expect(back.searchParams.get("payment_id")).toBe(payment.id);
    expect(back.searchParams.get("status")).toBe("succeeded");
    expect(await (await fetch(payment.checkout_url)).text()).toContain("Return to the merchant");
  });

  it("has no simulate buttons in live mode and refuses simulation there; unknown ids are 404", async () => {
    const live = await json<{ id: string }>(
      await payments.request("/v1/payments", {
        method: "POST",
        key: payments.liveKey,
        json: { amount: 1000, method: "card" },
      }),
    );
    const html = await (await fetch(`${payments.url}/checkout/${live.id}`)).text();
    expect(html).not.toContain("Simulate");
    const refused = await fetch(`${payments.url}/checkout/${live.id}/simulate`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ action: "succeed" }),
      redirect: "manual",
    });
    expect(refused.status).toBe(403);
    expect((await fetch(`${payments.url}/checkout/pay_nothing`)).status).toBe(404);
  });
});

describe("dashboard /dashboard/webhooks", () => {
  /** The login form's token and the cookie that must come back with it, as a browser would keep them. */
  async function loginForm(): Promise<{ cookie: string; token: string }> {
    const response = await fetch(`${payments.url}/dashboard/login`);
    const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const token = /name="form_token" value="([^"]+)"/.exec(await response.text())?.[1] ?? "";
    expect(cookie).toMatch(/^dashboard_login_token=/);
    return { cookie, token };
  }

  async function postLogin(fields: Record<string, string>, cookie: string): Promise<Response> {
    return fetch(`${payments.url}/dashboard/login`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: form(fields),
      redirect: "manual",
    });
  }

  async function signIn(key: string): Promise<{ cookie: string; csrf: string }> {
    const login = await loginForm();
    const response = await postLogin({ secret_key: key, form_token: login.token }, login.cookie);
    expect(response.status).toBe(303);
    const setCookie =
      response.headers.getSetCookie().find((value) => value.startsWith("payments_dashboard=")) ?? "";
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const cookie = setCookie.split(";")[0] ?? "";
    const page = await (await fetch(`${payments.url}/dashboard/webhooks`, { headers: { cookie } })).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? "";
    expect(csrf).not.toBe("");
    return { cookie, csrf };
  }

  const post = (path: string, cookie: string, fields: Record<string, string>) =>
    fetch(`${payments.url}${path}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: form(fields),
      redirect: "manual",
    });

  it("needs a sign-in with a valid secret key", async () => {
    const anonymous = await fetch(`${payments.url}/dashboard/webhooks`, { redirect: "manual" });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/dashboard/login");
    const login = await loginForm();
    const wrong = await postLogin(
      { secret_key: "sk_test_not_a_real_key_0000000", form_token: login.token },
      login.cookie,
    );
    expect(wrong.status).toBe(401);
  });

  it("refuses a sign-in form posted without its token cookie (login CSRF), even with a valid key", async () => {
    const merchant = await payments.newMerchant("Login CSRF merchant");
    const login = await loginForm();
    // A cross-site form: the browser does not send the SameSite=Strict cookie, or the attacker guesses.
    const noCookie = await postLogin({ secret_key: merchant.testKey, form_token: login.token }, "");
    expect(noCookie.status).toBe(403);
    expect(noCookie.headers.getSetCookie().some((value) => value.startsWith("payments_dashboard="))).toBe(
      false,
    );
    const wrongToken = await postLogin({ secret_key: merchant.testKey, form_token: "guessed" }, login.cookie);
    expect(wrongToken.status).toBe(403);
  });

  it("lists endpoints and failed deliveries, shows attempts, replays one or all failed with CSRF, rotates the secret", async () => {
    const merchant = await payments.newMerchant("Dashboard merchant");
    const endpoint = await json<{ id: string }>(
      await payments.request("/v1/webhook_endpoints", {
        method: "POST",
        key: merchant.testKey,
        json: { url: receiver.url, enabled_events: ["*"] },
      }),
    );
    await payments.request("/v1/payments", {
      method: "POST",
      key: merchant.testKey,
      json: { amount: 1000, method: "qris" },
    });
    await payments.engine.runDue();
    const { cookie, csrf } = await signIn(merchant.testKey);

    const overview = await (
      await fetch(`${payments.url}/dashboard/webhooks?status=retrying`, { headers: { cookie } })
    ).text();
    expect(overview).toContain(endpoint.id);
    expect(overview).toContain("retrying");
    expect(overview).toContain("0 %"); // success rate of the endpoint's attempts
    const deliveryId = /\/dashboard\/webhooks\/deliveries\/(wd_[0-9a-z]+)/.exec(overview)?.[1] ?? "";
    expect(deliveryId).not.toBe("");

    const detail = await (
      await fetch(`${payments.url}/dashboard/webhooks/deliveries/${deliveryId}`, { headers: { cookie } })
    ).text();
    expect(detail).toContain("x-service-signature");
    expect(detail).toContain("status 500");

    // Park it: the six retries fail too (the clock here is real, so move the schedule instead of waiting).
    await payments.deps.db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, deliveryId));

    const forged = await post(`/dashboard/webhooks/deliveries/${deliveryId}/replay`, cookie, {
      csrf_token: "forged",
    });
    expect(forged.status).toBe(403);
    const missing = await post(`/dashboard/webhooks/deliveries/${deliveryId}/replay`, cookie, {});
    expect(missing.status).toBe(403);
    const replay = await post(`/dashboard/webhooks/deliveries/${deliveryId}/replay`, cookie, {
      csrf_token: csrf,
    });
    expect(replay.status).toBe(303);
    const afterReplay = await json<{ status: string; replay_count: number }>(
      await payments.request(`/v1/webhook_deliveries/${deliveryId}`, { key: merchant.testKey }),
    );
    expect(afterReplay).toMatchObject({ status: "pending", replay_count: 1 });

    await payments.deps.db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, deliveryId));
    const bulk = await post(`/dashboard/webhooks/endpoints/${endpoint.id}/replay_failed`, cookie, {
      csrf_token: csrf,
      since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 16),
    });
    expect(bulk.status).toBe(303);
    expect(decodeURIComponent(bulk.headers.get("location") ?? "")).toContain(
      "1 failed deliveries scheduled again",
    );

    const rotated = await post(`/dashboard/webhooks/endpoints/${endpoint.id}/rotate`, cookie, {
      csrf_token: csrf,
    });
    expect(rotated.status).toBe(200);
    expect(await rotated.text()).toMatch(/<pre id="secret">whsec_[0-9a-f]{64}<\/pre>/);

    // Another merchant's session sees none of it.
    const other = await signIn(payments.testKey);
    const foreign = await fetch(`${payments.url}/dashboard/webhooks/deliveries/${deliveryId}`, {
      headers: { cookie: other.cookie },
    });
    expect(foreign.status).toBe(404);

    const signOut = await post("/dashboard/logout", cookie, { csrf_token: csrf });
    expect(signOut.status).toBe(303);
    const afterSignOut = await fetch(`${payments.url}/dashboard/webhooks`, {
      headers: { cookie },
      redirect: "manual",
    });
    expect(afterSignOut.status).toBe(303);
  });
});
