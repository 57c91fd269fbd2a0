import { randomBytes } from "node:crypto";
import { constantTimeEqual } from "@app/core";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { escapeHtml } from "./html.ts";

/**
 * CSRF protection for forms shown before anyone is signed in (the dashboard's login, the
 * checkout's test-mode buttons), where no session exists to hold a token: a double-submit token,
 * a random value both in a SameSite=Strict cookie scoped to the form's path and in the form.
 * Another site can make a browser post the form but can neither read nor send the cookie.
 *
 * @example
 * const tokens = formTokens({ cookie: "login_token", path: "/dashboard/login", isSecure });
 * c.html(`<form>${tokens.field(tokens.issue(c))}…</form>`);
 * if (!tokens.isValid(c, form)) return c.html("expired", 403);
 */
export function formTokens(options: { cookie: string; path: string; isSecure: boolean }) {
  const cookieOptions = {
    httpOnly: true,
    sameSite: "Strict",
    secure: options.isSecure,
    path: options.path,
  } as const;
  return {
    /** A fresh token, set as the cookie; put it in the form with `field`. */
    issue(c: Context): string {
      const token = randomBytes(24).toString("base64url");
      setCookie(c, options.cookie, token, cookieOptions);
      return token;
    },
    field(token: string): string {
      return `<input type="hidden" name="form_token" value="${escapeHtml(token)}">`;
    },
    /** Whether the posted form carries the cookie's token. */
    isValid(c: Context, form: Record<string, unknown>): boolean {
      const expected = getCookie(c, options.cookie) ?? "";
      const given = typeof form.form_token === "string" ? form.form_token : "";
      return expected !== "" && constantTimeEqual(given, expected);
    },
    clear(c: Context): void {
      deleteCookie(c, options.cookie, { path: options.path });
    },
  };
}
