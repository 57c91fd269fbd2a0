import { constantTimeEqual, unixSeconds } from "@app/core";
import {
  type DeliveryStatus,
  endpointDeliveryStats,
  findDelivery,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  replayFailedDeliveries,
  rotateEndpointSecret,
} from "@app/webhooks";
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Deps } from "../deps.ts";
import { authenticateSecretKey } from "../merchants/authenticate-secret-key.ts";
import { formTokens } from "../shared/form-token.ts";
import { escapeHtml, PAGE_HEADERS, page } from "../shared/html.ts";
import {
  createDashboardSession,
  type DashboardSession,
  deleteDashboardSession,
  findDashboardSession,
  SESSION_COOKIE,
  SESSION_TTL_MS,
} from "./sessions.ts";

type DashboardEnv = { Variables: { session: DashboardSession; cookieValue: string } };

const STATUSES: readonly DeliveryStatus[] = ["pending", "retrying", "delivered", "failed"];

const time = (date: Date | null | undefined) =>
  date ? escapeHtml(date.toISOString().replace(".000", "")) : "—";

function csrfField(session: DashboardSession): string {
  return `<input type="hidden" name="csrf_token" value="${escapeHtml(session.csrfToken)}">`;
}

function loginPage(tokenField: string, message = ""): string {
  return page(
    "Sign in",
    `<h1>Payment service dashboard</h1>
${message ? `<p class="failed badge">${escapeHtml(message)}</p>` : ""}
<form method="post" action="/dashboard/login">
${tokenField}
<label>Secret key <input type="password" name="secret_key" autocomplete="off" size="50" placeholder="sk_test_…"></label>
<button>Sign in</button></form>`,
  );
}

/**
 * `/dashboard/webhooks`: server-rendered pages behind a secret-key sign-in (HttpOnly, SameSite=Lax
 * cookie); every state-changing form carries the session's CSRF token.
 *
 * @example app.route("/dashboard", dashboardRoutes(deps));
 */
export function dashboardRoutes(deps: Deps) {
  const router = new Hono<DashboardEnv>();
  const isSecure = deps.config.publicUrl.startsWith("https://");

  // No session exists before sign-in to hold a CSRF token; without one another site could sign a
  // victim into the attacker's account (login CSRF).
  const loginTokens = formTokens({ cookie: "dashboard_login_token", path: "/dashboard/login", isSecure });
  const loginForm = (c: Context, message?: string) =>
    loginPage(loginTokens.field(loginTokens.issue(c)), message);

  router.get("/login", (c) => c.html(loginForm(c), 200, PAGE_HEADERS));
  router.post("/login", async (c) => {
    const form = await c.req.parseBody();
    if (!loginTokens.isValid(c, form)) {
      return c.html(loginForm(c, "The sign-in form has expired; try again."), 403, PAGE_HEADERS);
    }
    const key = typeof form.secret_key === "string" ? form.secret_key.trim() : "";
    const scope = await authenticateSecretKey(deps.db, key);
    if (!scope) return c.html(loginForm(c, "That secret key is not valid."), 401, PAGE_HEADERS);
    loginTokens.clear(c);
    const { cookieValue } = await createDashboardSession(deps, scope);
    setCookie(c, SESSION_COOKIE, cookieValue, {
      httpOnly: true,
      sameSite: "Lax",
      secure: isSecure,
      path: "/dashboard",
      maxAge: SESSION_TTL_MS / 1000,
    });
    return c.redirect("/dashboard/webhooks", 303);
  });

  router.use("*", async (c, next) => {
    const cookieValue = getCookie(c, SESSION_COOKIE);
    const session = cookieValue ? await findDashboardSession(deps, cookieValue) : null;
    if (!session || !cookieValue) return c.redirect("/dashboard/login", 303);
    c.set("session", session);
    c.set("cookieValue", cookieValue);
    if (c.req.method === "POST") {
      const form = await c.req.parseBody();
      const token = typeof form.csrf_token === "string" ? form.csrf_token : "";
      if (!constantTimeEqual(token, session.csrfToken)) {
        return c.html(
          page("Forbidden", "<h1>The form has expired; reload the page and try again.</h1>"),
          403,
          PAGE_HEADERS,
        );
      }
    }
    return next();
  });

  router.post("/logout", async (c) => {
    await deleteDashboardSession(deps.db, c.get("cookieValue"));
    deleteCookie(c, SESSION_COOKIE, { path: "/dashboard" });
    return c.redirect("/dashboard/login", 303);
  });

  router.get("/webhooks", async (c) => {
    const session = c.get("session");
    const scope = { ownerId: session.merchantId, environment: session.environment };
    const statusParam = c.req.query("status");
    const status = STATUSES.find((value) => value === statusParam);
    const endpointFilter = c.req.query("endpoint") || undefined;
    const endpoints = (await listEndpoints(deps.db, { ...scope, limit: 100 })).slice(0, 100);
    const stats = await endpointDeliveryStats(deps.db, scope);
    const deliveries = (
      await listDeliveries(deps.db, { ...scope, limit: 100, status, endpointId: endpointFilter })
    ).slice(0, 100);
    const notice = c.req.query("notice");

    const endpointRows = endpoints
      .map((endpoint) => {
        const stat = stats.get(endpoint.id);
        const rate = stat?.successRate == null ? "—" : `${Math.round(stat.successRate * 1000) / 10} %`;
        const counts = STATUSES.map((s) => `${s}: ${stat?.byStatus[s] ?? 0}`).join(", ");
        return `<tr><td><a href="/dashboard/webhooks?endpoint=${escapeHtml(endpoint.id)}">${escapeHtml(endpoint.id)}</a><br><span class="muted">${escapeHtml(endpoint.url)}</span></td>
<td>${escapeHtml(endpoint.enabledEvents.join(", "))}</td><td>${endpoint.isDisabled ? "disabled" : "enabled"}</td>
<td>${rate}<br><span class="muted">${escapeHtml(counts)}</span></td>
<td><form class="inline" method="post" action="/dashboard/webhooks/endpoints/${escapeHtml(endpoint.id)}/rotate">${csrfField(session)}<button>Rotate secret</button></form>
<form method="post" action="/dashboard/webhooks/endpoints/${escapeHtml(endpoint.id)}/replay_failed">${csrfField(session)}
<label>Failed since <input type="datetime-local" name="since" required></label> <button>Replay all failed</button></form></td></tr>`;
      })
      .join("\n");

    const deliveryRows = deliveries
      .map(
        (
          delivery,
        ) => `<tr><td><a href="/dashboard/webhooks/deliveries/${escapeHtml(delivery.id)}">${escapeHtml(delivery.id)}</a></td>
<td>${escapeHtml(delivery.eventType)}<br><span class="muted">${escapeHtml(delivery.eventId)}</span></td>
<td><span class="badge ${escapeHtml(delivery.status)}">${escapeHtml(delivery.status)}</span></td>
<td>${delivery.attemptCount}</td><td>${delivery.status === "pending" || delivery.status === "retrying" ? time(delivery.nextAttemptAt) : "—"}</td>
<td>${escapeHtml(delivery.lastResponseStatus ?? delivery.lastError ?? "—")}</td>
<td>${delivery.status === "failed" || delivery.status === "delivered" ? `<form class="inline" method="post" action="/dashboard/webhooks/deliveries/${escapeHtml(delivery.id)}/replay">${csrfField(session)}<button>Replay</button></form>` : ""}</td></tr>`,
      )
      .join("\n");

    const filters = ["all", ...STATUSES]
      .map((s) => {
        const query = new URLSearchParams({
          ...(s === "all" ? {} : { status: s }),
          ...(endpointFilter ? { endpoint: endpointFilter } : {}),
        });
        return `<a href="/dashboard/webhooks?${escapeHtml(query.toString())}">${s}</a>`;
      })
      .join(" ");

    const body = `<nav><strong>Webhooks</strong> <span class="muted">${escapeHtml(session.environment)} mode, ${escapeHtml(session.merchantId)}</span>
<form class="inline" method="post" action="/dashboard/logout">${csrfField(session)}<button>Sign out</button></form></nav>
${notice ? `<p class="badge delivered">${escapeHtml(notice)}</p>` : ""}
<h2>Endpoints</h2>
<table><tr><th>Endpoint</th><th>Events</th><th>State</th><th>Success rate (attempts)</th><th></th></tr>${endpointRows || '<tr><td colspan="5" class="muted">No endpoints yet.</td></tr>'}</table>
<h2>Deliveries${status ? `: ${escapeHtml(status)}` : ""}${endpointFilter ? ` to ${escapeHtml(endpointFilter)}` : ""}</h2>
<p>${filters}</p>
<table><tr><th>Delivery</th><th>Event</th><th>Status</th><th>Attempts</th><th>Next attempt</th><th>Last answer</th><th></th></tr>${deliveryRows || '<tr><td colspan="7" class="muted">No deliveries.</td></tr>'}</table>`;
    return c.html(page("Webhooks", body), 200, PAGE_HEADERS);
  });

  router.get("/webhooks/deliveries/:id", async (c) => {
    const session = c.get("session");
    const found = await findDelivery(deps.db, {
      ownerId: session.merchantId,
      environment: session.environment,
      id: c.req.param("id"),
    });
    if (!found) return c.html(page("Not found", "<h1>No such delivery</h1>"), 404, PAGE_HEADERS);
    const { delivery, attempts } = found;
    const attemptRows = attempts
      .map(
        (
          attempt,
        ) => `<tr><td>${attempt.id}</td><td>${time(attempt.attemptedAt)}</td><td>${attempt.durationMs} ms</td>
<td>${attempt.isSuccess ? "ok" : "failed"}</td><td>${escapeHtml(attempt.responseStatus ?? "—")}</td>
<td><details><summary>request headers</summary><pre>${escapeHtml(JSON.stringify(attempt.requestHeaders, null, 2))}</pre></details>
<details><summary>response</summary><pre>${escapeHtml(attempt.responseBody ?? attempt.error ?? "")}</pre></details></td></tr>`,
      )
      .join("\n");
    const body = `<nav><a href="/dashboard/webhooks">← Webhooks</a></nav>
<h1>Delivery ${escapeHtml(delivery.id)}</h1>
<p>Event ${escapeHtml(delivery.eventId)} (${escapeHtml(delivery.eventType)}) to ${escapeHtml(delivery.endpointId)}</p>
<p>Status <span class="badge ${escapeHtml(delivery.status)}">${escapeHtml(delivery.status)}</span>,
next attempt ${delivery.status === "pending" || delivery.status === "retrying" ? time(delivery.nextAttemptAt) : "—"}, replays ${delivery.replayCount}</p>
${delivery.status === "failed" || delivery.status === "delivered" ? `<form method="post" action="/dashboard/webhooks/deliveries/${escapeHtml(delivery.id)}/replay">${csrfField(session)}<button>Replay</button></form>` : ""}
<h2>Attempts</h2><table><tr><th>X-Service-Delivery</th><th>At</th><th>Took</th><th>Result</th><th>Status</th><th>Details</th></tr>
${attemptRows || '<tr><td colspan="6" class="muted">No attempts on record (they are kept 90 days).</td></tr>'}</table>`;
    return c.html(page(`Delivery ${delivery.id}`, body), 200, PAGE_HEADERS);
  });

  router.post("/webhooks/deliveries/:id/replay", async (c) => {
    const session = c.get("session");
    const result = await replayDelivery(deps, {
      ownerId: session.merchantId,
      environment: session.environment,
      id: c.req.param("id"),
    });
    if (result.kind === "replayed") deps.deliveries.wake();
    const notice =
      result.kind === "replayed"
        ? "Replay scheduled."
        : result.kind === "scheduled"
          ? "Already scheduled."
          : "No such delivery.";
    return c.redirect(`/dashboard/webhooks?notice=${encodeURIComponent(notice)}`, 303);
  });

  router.post("/webhooks/endpoints/:id/replay_failed", async (c) => {
    const session = c.get("session");
    const form = await c.req.parseBody();
    const since = typeof form.since === "string" ? new Date(`${form.since}Z`) : new Date(Number.NaN);
    if (Number.isNaN(since.getTime()))
      return c.redirect(`/dashboard/webhooks?notice=${encodeURIComponent("Pick a start time.")}`, 303);
    const count = await replayFailedDeliveries(deps, {
      ownerId: session.merchantId,
      environment: session.environment,
      endpointId: c.req.param("id"),
      since,
    });
    if (count > 0) deps.deliveries.wake();
    return c.redirect(
      `/dashboard/webhooks?notice=${encodeURIComponent(`${count} failed deliveries scheduled again.`)}`,
      303,
    );
  });

  router.post("/webhooks/endpoints/:id/rotate", async (c) => {
    const session = c.get("session");
    const rotated = await rotateEndpointSecret(deps, {
      ownerId: session.merchantId,
      environment: session.environment,
      id: c.req.param("id"),
    });
    if (!rotated) return c.html(page("Not found", "<h1>No such endpoint</h1>"), 404, PAGE_HEADERS);
    const body = `<nav><a href="/dashboard/webhooks">← Webhooks</a></nav><h1>New signing secret</h1>
<p>Copy it now: it is not shown again. The previous secret keeps signing (a second <code>v1=</code>) until ${escapeHtml(
      new Date((unixSeconds(deps.clock.now()) + 86_400) * 1000).toISOString(),
    )}.</p><pre id="secret">${escapeHtml(rotated.secret)}</pre>`;
    return c.html(page("New signing secret", body), 200, PAGE_HEADERS);
  });
  return router;
}
