import { manualClock } from "@app/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { purgeAuditLog } from "./purge-audit-log.ts";

let builder: TestBuilder;
const clock = manualClock(new Date());
let owner: { cookie: string; userId: string; email: string };
let mate: { cookie: string; userId: string; email: string };
let workspaceId: string;

type Entry = {
  action: string;
  actor: { user_id: string | null; email: string | null; via: string };
  target_id: string | null;
  details: { route: string; params?: Record<string, string>; fields?: Record<string, unknown> };
  created_at: string;
};

const inTeam = (person = owner) => ({ cookie: person.cookie, headers: { "x-workspace-id": workspaceId } });

/** One request a second later than the last: entries of one millisecond have no order. */
async function call(path: string, init: Parameters<TestBuilder["request"]>[1], status: number) {
  clock.advance(1000);
  const response = await builder.request(path, init);
  const text = await response.text();
  expect(response.status, `${init?.method ?? "GET"} ${path}: ${text}`).toBe(status);
  return (text ? JSON.parse(text) : undefined) as Record<string, string>;
}

async function entries(): Promise<Entry[]> {
  const page = await call("/api/audit-log?limit=100", inTeam(), 200);
  return (page as unknown as { data: Entry[] }).data;
}

beforeAll(async () => {
  builder = await startTestBuilder({ clock, env: { ALLOW_PRIVATE_URLS: "1" } });
  owner = await builder.signUp();
  mate = await builder.signUp();
  workspaceId =
    (await call("/api/workspaces", { method: "POST", cookie: owner.cookie, json: { name: "Audited" } }, 201))
      .id ?? "";
}, 60_000);
afterAll(() => builder?.stop());

describe("the audit log", () => {
  it("has an entry for each change of members, invitations, keys, credentials, apps, webhooks and deletes", async () => {
    const invitation = await call(
      "/api/invitations",
      { method: "POST", ...inTeam(), json: { email: mate.email, role: "viewer" } },
      201,
    );
    await call(`/api/invitations/${invitation.id}/accept`, { method: "POST", cookie: mate.cookie }, 200);
    await call(`/api/members/${mate.userId}`, { method: "PATCH", ...inTeam(), json: { role: "admin" } }, 200);
    const other = await call(
      "/api/invitations",
      { method: "POST", ...inTeam(), json: { email: "nobody@example.com", role: "editor" } },
      201,
    );
    await call(`/api/invitations/${other.id}`, { method: "DELETE", ...inTeam() }, 204);
    const key = await call(
      "/api/keys",
      { method: "POST", ...inTeam(), json: { name: "ci", role: "viewer" } },
      201,
    );
    await call(`/api/keys/${key.id}`, { method: "DELETE", ...inTeam() }, 204);
    const credential = await call(
      "/api/credentials",
      { method: "POST", ...inTeam(), json: { provider: "openai", api_key: "sk-audit-secret-123456" } },
      201,
    );
    await call(`/api/credentials/${credential.id}`, { method: "DELETE", ...inTeam() }, 204);
    const agent = await call(
      "/api/agents",
      {
        method: "POST",
        ...inTeam(),
        json: { name: "Audited agent", provider: "openai", model: "gpt-4o-mini" },
      },
      201,
    );
    await call(
      `/api/agents/${agent.id}/versions`,
      { method: "POST", ...inTeam(), json: { notes: "first" } },
      201,
    );
    const app = await call(
      "/api/apps",
      { method: "POST", ...inTeam(), json: { agent_id: agent.id, title: "Help" } },
      201,
    );
    await call(`/api/apps/${app.id}`, { method: "PATCH", ...inTeam(), json: { title: "Help desk" } }, 200);
    const webhook = await call(
      "/api/webhooks",
      { method: "POST", ...inTeam(), json: { url: "http://127.0.0.1:9/hooks", events: ["document.ready"] } },
      201,
    );
    await call(`/api/webhooks/${webhook.id}/rotate-secret`, { method: "POST", ...inTeam() }, 200);
    await call(`/api/webhooks/${webhook.id}`, { method: "DELETE", ...inTeam() }, 204);
    await call(`/api/apps/${app.id}`, { method: "DELETE", ...inTeam() }, 204);
    await call(`/api/agents/${agent.id}`, { method: "DELETE", ...inTeam() }, 204);
    await call(
      "/api/workspaces/current/transfer",
      { method: "POST", ...inTeam(), json: { user_id: mate.userId } },
      200,
    );
    await call(
      `/api/members/${owner.userId}`,
      { method: "PATCH", ...inTeam(mate), json: { role: "admin" } },
      200,
    );

    const log = await entries();
    expect(log.map((entry) => entry.action).reverse()).toEqual([
      "workspace.created",
      "invitation.created",
      "invitation.accepted",
      "member.role_changed",
      "invitation.created",
      "invitation.withdrawn",
      "api_key.created",
      "api_key.revoked",
      "credential.created",
      "credential.deleted",
      "agent.published",
      "app.created",
      "app.updated",
      "webhook.created",
      "webhook.secret_rotated",
      "webhook.deleted",
      "apps.deleted",
      "agents.deleted",
      "workspace.ownership_transferred",
      "member.role_changed",
    ]);
    const roleChange = log.find(
      (entry) => entry.action === "member.role_changed" && entry.target_id === mate.userId,
    );
    expect(roleChange).toMatchObject({
      actor: { user_id: owner.userId, email: owner.email, via: "session" },
      details: {
        route: "PATCH /api/members/{user_id}",
        params: { user_id: mate.userId },
        fields: { role: "admin" },
      },
    });
    expect(log.find((entry) => entry.action === "invitation.accepted")).toMatchObject({
      actor: { user_id: mate.userId },
      target_id: mate.userId,
    });
    expect(log.find((entry) => entry.action === "credential.created")?.target_id).toBe(credential.id);
    // Never a secret.
    expect(JSON.stringify(log)).not.toContain("sk-audit-secret-123456");
    // Reads are not recorded.
    expect(log.some((entry) => entry.details.route.startsWith("GET "))).toBe(false);
  });

  it("is for admins and owners only", async () => {
    const viewer = await builder.signUp();
    const invitation = await call(
      "/api/invitations",
      { method: "POST", ...inTeam(mate), json: { email: viewer.email, role: "editor" } },
      201,
    );
    await call(`/api/invitations/${invitation.id}/accept`, { method: "POST", cookie: viewer.cookie }, 200);
    const refused = await builder.request("/api/audit-log", inTeam(viewer));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "forbidden_role" } });
    expect((await builder.request("/api/audit-log/export", inTeam(viewer))).status).toBe(403);
  });

  it("exports every entry as JSON Lines, oldest first", async () => {
    const response = await builder.request("/api/audit-log/export", inTeam());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Entry);
    const newestFirst = await entries();
    expect(lines.map((entry) => entry.action)).toEqual(newestFirst.map((entry) => entry.action).reverse());
  });

  it("filters by action and keeps entries only for the retention period", async () => {
    const filtered = await call("/api/audit-log?action=member.role_changed", inTeam(), 200);
    expect((filtered as unknown as { data: Entry[] }).data).toHaveLength(2);
    clock.advance(364 * 86_400_000);
    expect(await purgeAuditLog(builder.deps, 365)).toBe(0);
    clock.advance(2 * 86_400_000);
    expect(await purgeAuditLog(builder.deps, 365)).toBeGreaterThan(10);
    expect(await entries()).toEqual([]);
  });
});
