import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionCookie, startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let builder: TestBuilder;
beforeAll(async () => {
  builder = await startTestBuilder({ env: { AUTH_SIGN_IN_PER_MINUTE: "5" } });
});
afterAll(() => builder?.stop());

describe("sign-up and sign-in by e-mail", () => {
  it("registers, normalises the e-mail, and signs in with a session cookie", async () => {
    const signUp = await builder.request("/api/auth/sign-up/email", {
      method: "POST",
      json: { email: "  Grace.Hopper@Example.COM ", password: "cobol-forever", name: "Grace" },
    });
    expect(signUp.status).toBe(200);
    const registered = (await signUp.json()) as { user: { email: string; id: string }; token: string };
    expect(registered.user.email).toBe("grace.hopper@example.com");
    expect(registered.user.id).toMatch(/^usr_/);
    expect(signUp.headers.get("request-id")).toMatch(/^req_/);

    const signIn = await builder.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: "GRACE.HOPPER@example.com", password: "cobol-forever" },
    });
    expect(signIn.status).toBe(200);
    const body = (await signIn.json()) as { user: { id: string }; token: string };
    expect(body.user.id).toBe(registered.user.id);
    expect(body.token).toBeTruthy();
    const cookie = sessionCookie(signIn);

    const session = await builder.request("/api/auth/get-session", { cookie });
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: { id: string } }).user.id).toBe(registered.user.id);

    const agents = await builder.request("/api/agents", { cookie });
    expect(agents.status).toBe(200);
    expect(await agents.json()).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it("answers a duplicate e-mail with 409 email_taken", async () => {
    const { email } = await builder.signUp();
    const again = await builder.request("/api/auth/sign-up/email", {
      method: "POST",
      json: { email: email.toUpperCase(), password: "another-password", name: "Twin" },
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: { code: "email_taken", type: "conflict", param: "email" },
    });
  });

  it("refuses passwords shorter than 8 characters with 422 naming the field", async () => {
    const response = await builder.request("/api/auth/sign-up/email", {
      method: "POST",
      json: { email: "short@example.com", password: "1234567", name: "Short" },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; param: string; details: unknown[] } };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.param).toBe("password");
  });

  it("answers a wrong password with 401 invalid_credentials", async () => {
    const { email } = await builder.signUp();
    const response = await builder.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email, password: "not the password" },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_credentials" } });
  });

  it("signs out: the cookie no longer opens the API", async () => {
    const { cookie } = await builder.signUp();
    expect((await builder.request("/api/agents", { cookie })).status).toBe(200);
    const out = await builder.request("/api/auth/sign-out", { method: "POST", cookie });
    expect(out.status).toBe(200);
    const after = await builder.request("/api/agents", { cookie });
    expect(after.status).toBe(401);
  });

  it("rate-limits sign-in attempts per client address with 429 and Retry-After", async () => {
    const { email } = await builder.signUp("limited@example.com");
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 8; i++) {
      const response = await builder.request("/api/auth/sign-in/email", {
        method: "POST",
        json: { email, password: "wrong password" },
      });
      statuses.push(response.status);
      if (response.status === 401) {
        // better-auth's client reads `code` and `message` at the top level; our shape stays beside them.
        expect(await response.json()).toEqual({
          error: { type: "authentication_error", code: "invalid_credentials", message: expect.any(String) },
          code: "INVALID_EMAIL_OR_PASSWORD",
          message: "The e-mail address or password is wrong.",
        });
      }
      if (response.status === 429) {
        retryAfter = response.headers.get("retry-after");
        expect(response.headers.get("x-retry-after")).toBe(retryAfter);
        expect(await response.json()).toMatchObject({
          error: { code: "too_many_attempts", type: "rate_limit_error" },
          code: "TOO_MANY_ATTEMPTS",
          message: expect.any(String),
        });
      }
    }
    expect(statuses).toContain(401);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it("carries better-auth's code and message on errors raised before better-auth sees the request", async () => {
    const invalid = await builder.request("/api/auth/sign-up/email", {
      method: "POST",
      json: { email: "not-an-address", password: "long enough", name: "X" },
    });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({
      error: { code: "validation_failed", param: "email" },
      code: "VALIDATION_FAILED",
      message: expect.stringContaining("email"),
    });
    const nul = await builder.request("/api/auth/sign-up/email", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"email":"a@example.com","password":"long enough","name":"\\u0000"}',
    });
    expect(nul.status).toBe(422);
    expect(await nul.json()).toMatchObject({ error: { param: "name" }, code: "VALIDATION_FAILED" });
  });
});
