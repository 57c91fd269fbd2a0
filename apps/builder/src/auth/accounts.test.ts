import { startTestSmtpServer, type TestSmtpServer } from "@app/testing";
import { eq } from "drizzle-orm";
import { TOTP } from "otpauth";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sessionCookie, startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { workspaces } from "../workspaces/schema.ts";

let smtp: TestSmtpServer;
let builder: TestBuilder;
beforeAll(async () => {
  smtp = await startTestSmtpServer();
  builder = await startTestBuilder({ env: { SMTP_URL: smtp.url, AUTH_SIGN_IN_PER_MINUTE: "100" } });
});
afterAll(async () => {
  await builder?.stop();
  await smtp?.close();
});
afterEach(() => vi.useRealTimers());

const PASSWORD = "correct horse battery";

/** The `name=value` of the cookie `name` a response sets (better-auth's two-factor cookie, …). */
function cookieNamed(response: Response, name: string): string {
  const found = response.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
  if (!found) throw new Error(`no ${name} cookie in the response`);
  return found.split(";")[0] ?? "";
}

async function signIn(email: string, password = PASSWORD) {
  return builder.request("/api/auth/sign-in/email", { method: "POST", json: { email, password } });
}

/** Opens a link from an e-mail as a browser would, without following the redirect. */
async function openLink(link: string, cookie?: string) {
  const url = new URL(link);
  return builder.request(`${url.pathname}${url.search}`, {
    redirect: "manual",
    ...(cookie ? { cookie } : {}),
  });
}

async function currentUser(cookie: string) {
  const response = await builder.request("/api/auth/get-session", { cookie });
  return ((await response.json()) as { user: { email: string; emailVerified: boolean } } | null)?.user;
}

describe("e-mail verification", () => {
  it("sends a link at sign-up that confirms the address and lands in the studio", async () => {
    const { email, cookie } = await builder.signUp();
    const mail = await smtp.waitFor(email, (m) => m.subject.includes("Confirm your e-mail address"));
    expect(mail.text).toContain("Builder");
    const link = mail.links[0] ?? "";
    expect(link).toMatch(/\/api\/auth\/verify-email\?token=/);
    expect((await currentUser(cookie))?.emailVerified).toBe(false);

    const opened = await openLink(link);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/");
    expect((await currentUser(cookie))?.emailVerified).toBe(true);
  });

  it("with REQUIRE_EMAIL_VERIFICATION=1 refuses sign-in until the link was opened, and sends a new one", async () => {
    const strict = await startTestBuilder({
      env: { SMTP_URL: smtp.url, REQUIRE_EMAIL_VERIFICATION: "1", AUTH_SIGN_IN_PER_MINUTE: "100" },
    });
    try {
      const email = `strict-${Date.now()}@example.com`;
      const signUp = await strict.request("/api/auth/sign-up/email", {
        method: "POST",
        json: { email, password: PASSWORD, name: "Strict" },
      });
      expect(signUp.status).toBe(200);
      expect(((await signUp.json()) as { token: string | null }).token).toBeNull();
      expect(signUp.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token="))).toBe(
        false,
      );
      await smtp.waitFor(email);

      const refused = await strict.request("/api/auth/sign-in/email", {
        method: "POST",
        json: { email, password: PASSWORD },
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        error: { code: "email_not_verified" },
        code: "EMAIL_NOT_VERIFIED",
      });
      // The refused sign-in sent a fresh link; either one works.
      await vi.waitFor(() => expect(smtp.messages.filter((m) => m.to.includes(email))).toHaveLength(2));
      const link = new URL(smtp.messages.filter((m) => m.to.includes(email))[1]?.links[0] ?? "");
      const opened = await strict.request(`${link.pathname}${link.search}`, { redirect: "manual" });
      expect(opened.status).toBe(302);

      const allowed = await strict.request("/api/auth/sign-in/email", {
        method: "POST",
        json: { email, password: PASSWORD },
      });
      expect(allowed.status).toBe(200);
    } finally {
      await strict.stop();
    }
  });
});

describe("password reset", () => {
  it("e-mails a link that works once, sets the password and ends every session", async () => {
    const { email, cookie } = await builder.signUp();
    const other = sessionCookie(await signIn(email));
    expect((await builder.request("/api/agents", { cookie: other })).status).toBe(200);

    const asked = await builder.request("/api/auth/request-password-reset", {
      method: "POST",
      json: { email },
    });
    expect(asked.status).toBe(200);
    const mail = await smtp.waitFor(email, (m) => m.subject.includes("Reset your Builder password"));
    expect(mail.text).toContain("60 minutes");

    const opened = await openLink(mail.links[0] ?? "");
    expect(opened.status).toBe(302);
    const landing = new URL(opened.headers.get("location") ?? "");
    expect(landing.pathname).toBe("/reset-password");
    const token = landing.searchParams.get("token") ?? "";
    expect(token).not.toBe("");

    const reset = await builder.request("/api/auth/reset-password", {
      method: "POST",
      json: { token, newPassword: "a brand new password" },
    });
    expect(reset.status).toBe(200);
    // Both sessions ended at once (the cache of authenticated cookies included).
    expect((await builder.request("/api/agents", { cookie })).status).toBe(401);
    expect((await builder.request("/api/agents", { cookie: other })).status).toBe(401);
    expect((await signIn(email)).status).toBe(401);
    expect((await signIn(email, "a brand new password")).status).toBe(200);

    const again = await builder.request("/api/auth/reset-password", {
      method: "POST",
      json: { token, newPassword: "yet another password" },
    });
    expect(again.status).toBe(422);
    expect(await again.json()).toMatchObject({ error: { code: "invalid_token" }, code: "INVALID_TOKEN" });
  });

  it("refuses a link older than an hour", async () => {
    const { email } = await builder.signUp();
    await builder.request("/api/auth/request-password-reset", { method: "POST", json: { email } });
    const mail = await smtp.waitFor(email, (m) => m.subject.includes("Reset"));
    const token = new URL(mail.links[0] ?? "").pathname.split("/").at(-1) ?? "";
    // better-auth reads the time from Date: move it, and only it.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61 * 60_000 });
    const expired = await builder.request("/api/auth/reset-password", {
      method: "POST",
      json: { token, newPassword: "too late for this" },
    });
    expect(expired.status).toBe(422);
    expect(await expired.json()).toMatchObject({ error: { code: "invalid_token" } });
    const opened = await openLink(mail.links[0] ?? "");
    expect(new URL(opened.headers.get("location") ?? "").searchParams.get("error")).toBe("INVALID_TOKEN");
  });

  it("answers an unknown address like a known one", async () => {
    const response = await builder.request("/api/auth/request-password-reset", {
      method: "POST",
      json: { email: "nobody-here@example.com" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: true });
  });
});

describe("changing the password and the e-mail address", () => {
  it("changes the password with the current one, and can sign out the other sessions", async () => {
    const { email, cookie } = await builder.signUp();
    const other = sessionCookie(await signIn(email));
    const wrong = await builder.request("/api/auth/change-password", {
      method: "POST",
      cookie,
      json: { currentPassword: "not it", newPassword: "the second password" },
    });
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ error: { code: "invalid_password" } });

    const changed = await builder.request("/api/auth/change-password", {
      method: "POST",
      cookie,
      json: { currentPassword: PASSWORD, newPassword: "the second password", revokeOtherSessions: true },
    });
    expect(changed.status).toBe(200);
    const fresh = sessionCookie(changed);
    expect((await builder.request("/api/agents", { cookie: other })).status).toBe(401);
    expect((await builder.request("/api/agents", { cookie: fresh })).status).toBe(200);
    expect((await signIn(email, "the second password")).status).toBe(200);
  });

  it("changes a confirmed address only after the old and then the new address confirm it", async () => {
    const { email, cookie } = await builder.signUp();
    await openLink((await smtp.waitFor(email)).links[0] ?? "");
    const newEmail = `moved-${Date.now()}@example.com`;
    const asked = await builder.request("/api/auth/change-email", {
      method: "POST",
      cookie,
      json: { newEmail, callbackURL: "/settings" },
    });
    expect(asked.status).toBe(200);
    const confirmation = await smtp.waitFor(email, (m) => m.subject.includes("Confirm the change"));
    expect(confirmation.text).toContain(newEmail);
    expect((await currentUser(cookie))?.email).toBe(email);

    expect((await openLink(confirmation.links[0] ?? "", cookie)).status).toBe(302);
    const verification = await smtp.waitFor(newEmail);
    expect((await currentUser(cookie))?.email).toBe(email);
    expect((await openLink(verification.links[0] ?? "", cookie)).status).toBe(302);
    expect((await currentUser(cookie))?.email).toBe(newEmail);
    expect((await signIn(newEmail)).status).toBe(200);
  });
});

describe("sessions", () => {
  it("lists one's sessions and revokes one, which stops working at once", async () => {
    const { email, cookie } = await builder.signUp();
    const laptop = sessionCookie(await signIn(email));
    expect((await builder.request("/api/agents", { cookie: laptop })).status).toBe(200);
    const listed = await builder.request("/api/auth/list-sessions", { cookie });
    expect(listed.status).toBe(200);
    const sessions = (await listed.json()) as { token: string }[];
    expect(sessions).toHaveLength(2);
    const laptopToken = decodeURIComponent(laptop.split("=")[1] ?? "").split(".")[0];
    const target = sessions.find((session) => session.token === laptopToken);
    expect(target).toBeDefined();

    const revoked = await builder.request("/api/auth/revoke-session", {
      method: "POST",
      cookie,
      json: { token: target?.token },
    });
    expect(revoked.status).toBe(200);
    expect((await builder.request("/api/agents", { cookie: laptop })).status).toBe(401);
    expect((await builder.request("/api/agents", { cookie })).status).toBe(200);
  });
});

describe("two-factor (TOTP)", () => {
  it("turns on with a code from the app, then asks sign-in for a code or a backup code", async () => {
    const { email, cookie } = await builder.signUp();
    const enabled = await builder.request("/api/auth/two-factor/enable", {
      method: "POST",
      cookie,
      json: { password: PASSWORD },
    });
    expect(enabled.status).toBe(200);
    const { totpURI, backupCodes } = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
    expect(totpURI).toMatch(/^otpauth:\/\/totp\/Builder:/);
    expect(backupCodes.length).toBeGreaterThanOrEqual(8);
    const secret = new URL(totpURI).searchParams.get("secret") ?? "";
    const app = new TOTP({ secret, digits: 6, period: 30 });

    // Not on until the first code is accepted.
    expect((await signIn(email)).headers.getSetCookie().join()).toMatch(/better-auth\.session_token=[^;]/);
    const wrong = await builder.request("/api/auth/two-factor/verify-totp", {
      method: "POST",
      cookie,
      json: { code: app.generate() === "000000" ? "111111" : "000000" },
    });
    expect(wrong.status).toBe(401);
    const confirmed = await builder.request("/api/auth/two-factor/verify-totp", {
      method: "POST",
      cookie,
      json: { code: app.generate() },
    });
    expect(confirmed.status).toBe(200);
    expect((await currentUser(sessionCookie(confirmed))) as unknown).toMatchObject({
      twoFactorEnabled: true,
    });

    const challenged = await signIn(email);
    expect(challenged.status).toBe(200);
    expect(await challenged.json()).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp"] });
    // No session yet: the cookie is only cleared.
    expect(challenged.headers.getSetCookie().join()).not.toMatch(/better-auth\.session_token=[^;]/);
    const byCode = await builder.request("/api/auth/two-factor/verify-totp", {
      method: "POST",
      cookie: cookieNamed(challenged, "better-auth.two_factor"),
      json: { code: app.generate() },
    });
    expect(byCode.status).toBe(200);
    expect((await builder.request("/api/agents", { cookie: sessionCookie(byCode) })).status).toBe(200);

    const challengedAgain = await signIn(email);
    const twoFactorCookie = cookieNamed(challengedAgain, "better-auth.two_factor");
    const byBackup = await builder.request("/api/auth/two-factor/verify-backup-code", {
      method: "POST",
      cookie: twoFactorCookie,
      json: { code: backupCodes[0] },
    });
    expect(byBackup.status).toBe(200);
    expect((await builder.request("/api/agents", { cookie: sessionCookie(byBackup) })).status).toBe(200);

    const reused = await builder.request("/api/auth/two-factor/verify-backup-code", {
      method: "POST",
      cookie: cookieNamed(await signIn(email), "better-auth.two_factor"),
      json: { code: backupCodes[0] },
    });
    expect(reused.status).toBe(401);
  });
});

describe("deleting one's account", () => {
  it("deletes the account and its personal workspace, and ends its sessions", async () => {
    const { email, cookie, userId } = await builder.signUp();
    expect((await builder.request("/api/agents", { cookie })).status).toBe(200);
    const [workspace] = await builder.deps.db
      .select()
      .from(workspaces)
      .where(eq(workspaces.ownerUserId, userId));
    expect(workspace).toBeDefined();

    const wrong = await builder.request("/api/auth/delete-user", {
      method: "POST",
      cookie,
      json: { password: "not it" },
    });
    expect(wrong.status).toBe(422);
    const deleted = await builder.request("/api/auth/delete-user", {
      method: "POST",
      cookie,
      json: { password: PASSWORD },
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ success: true, message: "User deleted" });
    expect((await builder.request("/api/agents", { cookie })).status).toBe(401);
    expect((await signIn(email)).status).toBe(401);
    expect(await builder.deps.db.select().from(workspaces).where(eq(workspaces.ownerUserId, userId))).toEqual(
      [],
    );
  });
});
