import { manualClock } from "@app/core";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { apiKeys } from "./schema.ts";

let builder: TestBuilder;
let cookie: string;
const clock = manualClock(new Date());
beforeAll(async () => {
  builder = await startTestBuilder({ clock });
  ({ cookie } = await builder.signUp());
});
afterAll(() => builder?.stop());

async function createKey(name: string, session = cookie) {
  const response = await builder.request("/api/keys", { method: "POST", cookie: session, json: { name } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string; prefix: string };
}

describe("API keys", () => {
  it("shows the key once, stores only its hash, and lists it without the key", async () => {
    const created = await createKey("ci");
    expect(created.key).toMatch(/^bk_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const [row] = await builder.deps.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row?.keyHash).toHaveLength(64);
    expect(JSON.stringify(row)).not.toContain(created.key);

    const list = await builder.request("/api/keys", { cookie });
    const body = (await list.json()) as { data: Record<string, unknown>[] };
    const listed = body.data.find((k) => k.id === created.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty("key");
    expect(JSON.stringify(body)).not.toContain(created.key);
  });

  it("authenticates every route a cookie opens with Authorization: Bearer", async () => {
    const { key } = await createKey("script");
    const made = await builder.request("/api/agents", {
      method: "POST",
      bearer: key,
      json: { name: "via key", provider: "openai", model: "gpt-4o-mini" },
    });
    expect(made.status).toBe(201);
    const agent = (await made.json()) as { id: string };
    const listByCookie = (await (await builder.request("/api/agents", { cookie })).json()) as {
      data: { id: string }[];
    };
    expect(listByCookie.data.map((a) => a.id)).toContain(agent.id);
    expect((await builder.request("/api/providers", { bearer: key })).status).toBe(200);
    expect((await builder.request("/api/keys", { bearer: key })).status).toBe(200);
  });

  it("answers a wrong, malformed or revoked key with 401 invalid_api_key", async () => {
    const { id, key } = await createKey("short-lived");
    for (const bad of [`${key}x`, "bk_nope", "not-a-key"]) {
      const response = await builder.request("/api/agents", { bearer: bad });
      expect(response.status, bad).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    }
    // Used once first, so a cached authentication must be evicted by the revocation.
    expect((await builder.request("/api/agents", { bearer: key })).status).toBe(200);
    expect((await builder.request(`/api/keys/${id}`, { method: "DELETE", cookie })).status).toBe(204);
    const revoked = await builder.request("/api/agents", { bearer: key });
    expect(revoked.status).toBe(401);
  });

  it("does not let another user see or revoke a key", async () => {
    const { id, key } = await createKey("mine");
    const other = await builder.signUp();
    const list = (await (await builder.request("/api/keys", { cookie: other.cookie })).json()) as {
      data: { id: string }[];
    };
    expect(list.data.map((k) => k.id)).not.toContain(id);
    const response = await builder.request(`/api/keys/${id}`, { method: "DELETE", cookie: other.cookie });
    expect(response.status).toBe(404);
    expect((await builder.request("/api/agents", { bearer: key })).status).toBe(200);
  });

  it("expires keys created with expires_in_days once that time has passed", async () => {
    const response = await builder.request("/api/keys", {
      method: "POST",
      cookie,
      json: { name: "expiring", expires_in_days: 1 },
    });
    const { key, expires_at } = (await response.json()) as { key: string; expires_at: string };
    expect(Date.parse(expires_at) - clock.now().getTime()).toBe(86_400_000);
    expect((await builder.request("/api/agents", { bearer: key })).status).toBe(200);
    clock.advance(86_400_000 + 1000);
    expect((await builder.request("/api/agents", { bearer: key })).status).toBe(401);
  });
});
