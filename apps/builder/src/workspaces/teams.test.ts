import { manualClock } from "@app/core";
import { startTestSmtpServer, type TestSmtpServer } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionCookie, startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let smtp: TestSmtpServer;
let builder: TestBuilder;
const clock = manualClock(new Date());
beforeAll(async () => {
  smtp = await startTestSmtpServer();
  builder = await startTestBuilder({ clock, env: { SMTP_URL: smtp.url, AUTH_SIGN_IN_PER_MINUTE: "100" } });
});
afterAll(async () => {
  await builder?.stop();
  await smtp?.close();
});

type Workspace = { id: string; name: string; role: string; is_personal: boolean; is_current: boolean };
type Person = { cookie: string; userId: string; email: string };

async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

const as = (person: Person, workspaceId?: string) => ({
  cookie: person.cookie,
  ...(workspaceId ? { headers: { "x-workspace-id": workspaceId } } : {}),
});

async function createWorkspace(owner: Person, name: string): Promise<Workspace> {
  return json(
    await builder.request("/api/workspaces", { method: "POST", ...as(owner), json: { name } }),
    201,
  );
}

async function createAgent(person: Person, workspaceId: string, name: string) {
  return builder.request("/api/agents", {
    method: "POST",
    ...as(person, workspaceId),
    json: { name, provider: "openai", model: "gpt-4o-mini" },
  });
}

async function agentNames(person: Person, workspaceId?: string): Promise<string[]> {
  const page = await json<{ data: { name: string }[] }>(
    await builder.request("/api/agents", as(person, workspaceId)),
  );
  return page.data.map((agent) => agent.name).sort();
}

/** Invites `email` with `role` and answers the invitation's id, read from the link of the e-mail it was sent. */
async function invite(admin: Person, workspaceId: string, email: string, role: string): Promise<string> {
  const created = await json<{ id: string; url: string; status: string }>(
    await builder.request("/api/invitations", {
      method: "POST",
      ...as(admin, workspaceId),
      json: { email, role },
    }),
    201,
  );
  expect(created.status).toBe("pending");
  const mail = await smtp.waitFor(email, (m) => m.links.includes(created.url));
  expect(mail.subject).toContain("invited you to");
  expect(mail.text).toContain(`as ${role === "admin" || role === "editor" ? "an" : "a"} ${role}`);
  const link = new URL(mail.links[0] ?? "");
  expect(link.pathname).toBe(`/invitations/${created.id}`);
  return link.pathname.split("/").at(-1) ?? "";
}

async function accept(person: Person, invitationId: string, status = 200) {
  return builder
    .request(`/api/invitations/${invitationId}/accept`, { method: "POST", cookie: person.cookie })
    .then((response) => json<Workspace & { error?: { code: string } }>(response, status));
}

/** A workspace owned by a new user, with a teammate who joined as `role` through an invitation. */
async function team(role: string) {
  const owner = await builder.signUp();
  const workspace = await createWorkspace(owner, `Team of ${role}s`);
  const mate = await builder.signUp();
  await accept(mate, await invite(owner, workspace.id, mate.email, role));
  return { owner, mate, workspace };
}

describe("workspaces", () => {
  it("starts every account with its personal workspace, where it is the owner", async () => {
    const ada = await builder.signUp();
    const list = await json<{ data: Workspace[] }>(await builder.request("/api/workspaces", as(ada)));
    expect(list.data).toEqual([
      expect.objectContaining({ role: "owner", is_personal: true, is_current: true }),
    ]);
    const current = await json<Workspace>(await builder.request("/api/workspaces/current", as(ada)));
    expect(current.id).toBe(list.data[0]?.id);
  });

  it("creates more workspaces and keeps each one's data apart, whichever way the workspace is chosen", async () => {
    const ada = await builder.signUp();
    const personal = await json<Workspace>(await builder.request("/api/workspaces/current", as(ada)));
    const acme = await createWorkspace(ada, "Acme");
    expect(acme).toMatchObject({ name: "Acme", role: "owner", is_personal: false, is_current: false });
    expect((await createAgent(ada, personal.id, "personal agent")).status).toBe(201);
    expect((await createAgent(ada, acme.id, "acme agent")).status).toBe(201);

    expect(await agentNames(ada)).toEqual(["personal agent"]);
    expect(await agentNames(ada, acme.id)).toEqual(["acme agent"]);
    expect(await agentNames(ada, personal.id)).toEqual(["personal agent"]);

    // Switching the session: requests without the header follow it.
    const activated = await json<Workspace>(
      await builder.request(`/api/workspaces/${acme.id}/activate`, { method: "POST", cookie: ada.cookie }),
    );
    expect(activated.is_current).toBe(true);
    expect(await agentNames(ada)).toEqual(["acme agent"]);
    const list = await json<{ data: Workspace[] }>(await builder.request("/api/workspaces", as(ada)));
    expect(list.data.find((w) => w.is_current)?.id).toBe(acme.id);
    // A new session of the same person starts in their default again.
    const laptop = sessionCookie(
      await builder.request("/api/auth/sign-in/email", {
        method: "POST",
        json: { email: ada.email, password: "correct horse battery" },
      }),
    );
    expect(await agentNames({ ...ada, cookie: laptop })).toEqual(["personal agent"]);
  });

  it("answers 404 workspace_not_found for a workspace the caller is not a member of, without a trace of its data", async () => {
    const ada = await builder.signUp();
    const eve = await builder.signUp();
    const secret = await createWorkspace(ada, "Secret");
    await createAgent(ada, secret.id, "classified");
    for (const workspaceId of [secret.id, "wsp_00000000000000000000000000", "not-an-id"]) {
      const response = await builder.request("/api/agents", as(eve, workspaceId));
      expect(response.status).toBe(404);
      const body = await response.text();
      expect(JSON.parse(body)).toMatchObject({ error: { code: "workspace_not_found" } });
      expect(body).not.toContain("classified");
    }
    const activate = await builder.request(`/api/workspaces/${secret.id}/activate`, {
      method: "POST",
      cookie: eve.cookie,
    });
    expect(activate.status).toBe(404);
  });

  it("renames the workspace for admins, deletes it for its owner, and never deletes a personal one", async () => {
    const { owner, mate, workspace } = await team("admin");
    const renamed = await builder.request("/api/workspaces/current", {
      method: "PATCH",
      ...as(mate, workspace.id),
      json: { name: "Renamed" },
    });
    expect((await json<Workspace>(renamed)).name).toBe("Renamed");
    const byAdmin = await builder.request("/api/workspaces/current", {
      method: "DELETE",
      ...as(mate, workspace.id),
    });
    expect(byAdmin.status).toBe(403);
    expect(await byAdmin.json()).toMatchObject({ error: { code: "forbidden_role" } });
    const personal = await builder.request("/api/workspaces/current", { method: "DELETE", ...as(owner) });
    expect(personal.status).toBe(409);
    expect(await personal.json()).toMatchObject({ error: { code: "personal_workspace" } });
    // A workspace with things in it goes with all of them.
    const doomed = await json<{ id: string }>(await createAgent(owner, workspace.id, "doomed"), 201);
    const inside = { ...as(owner, workspace.id), method: "POST" };
    expect((await builder.request(`/api/agents/${doomed.id}/versions`, { ...inside, json: {} })).status).toBe(
      201,
    );
    expect(
      (await builder.request("/api/apps", { ...inside, json: { agent_id: doomed.id, title: "Doomed" } }))
        .status,
    ).toBe(201);
    expect(
      (await builder.request("/api/knowledge-bases", { ...inside, json: { name: "Doomed" } })).status,
    ).toBe(201);
    expect((await builder.request("/api/keys", { ...inside, json: { name: "doomed" } })).status).toBe(201);
    expect(
      (await builder.request("/api/workspaces/current", { method: "DELETE", ...as(owner, workspace.id) }))
        .status,
    ).toBe(204);
    expect((await builder.request("/api/agents", as(mate, workspace.id))).status).toBe(404);
  });
});

describe("invitations", () => {
  it("invites a new person by e-mail: they sign up with that address and accept from the link", async () => {
    const owner = await builder.signUp();
    const workspace = await createWorkspace(owner, "Studio");
    await createAgent(owner, workspace.id, "shared agent");
    const email = `newcomer-${Date.now()}@example.com`;
    const invitationId = await invite(owner, workspace.id, email, "viewer");

    const newcomer = await builder.signUp(email);
    const seen = await json<{
      workspace: { name: string };
      is_for_you: boolean;
      status: string;
      role: string;
    }>(await builder.request(`/api/invitations/${invitationId}`, { cookie: newcomer.cookie }));
    expect(seen).toMatchObject({
      workspace: { name: "Studio" },
      is_for_you: true,
      status: "pending",
      role: "viewer",
    });
    const joined = await accept(newcomer, invitationId);
    expect(joined).toMatchObject({ id: workspace.id, role: "viewer" });
    expect(await agentNames(newcomer, workspace.id)).toEqual(["shared agent"]);

    const members = await json<{ data: { email: string; role: string }[] }>(
      await builder.request("/api/members", as(newcomer, workspace.id)),
    );
    expect(members.data.map((m) => [m.email, m.role])).toEqual([
      [owner.email, "owner"],
      [email, "viewer"],
    ]);
    const listed = await json<{ data: { id: string; status: string }[] }>(
      await builder.request("/api/invitations", as(owner, workspace.id)),
    );
    expect(listed.data.find((i) => i.id === invitationId)?.status).toBe("accepted");
    // Used once.
    expect((await accept(newcomer, invitationId, 409)).error?.code).toBe("invitation_expired");
  });

  it("lets an existing account accept, and only the invited address", async () => {
    const owner = await builder.signUp();
    const workspace = await createWorkspace(owner, "Lab");
    const carol = await builder.signUp();
    const mallory = await builder.signUp();
    const invitationId = await invite(owner, workspace.id, carol.email.toUpperCase(), "editor");
    const stranger = await builder.request(`/api/invitations/${invitationId}`, { cookie: mallory.cookie });
    expect((await json<{ is_for_you: boolean }>(stranger)).is_for_you).toBe(false);
    expect((await accept(mallory, invitationId, 403)).error?.code).toBe("invitation_for_another_address");
    expect((await accept(carol, invitationId)).role).toBe("editor");
    expect((await createAgent(carol, workspace.id, "by carol")).status).toBe(201);
  });

  it("refuses an invitation after seven days, and one withdrawn", async () => {
    const owner = await builder.signUp();
    const workspace = await createWorkspace(owner, "Slow");
    const late = await builder.signUp();
    const expired = await invite(owner, workspace.id, late.email, "viewer");
    clock.advance(7 * 86_400_000 + 1000);
    expect((await accept(late, expired, 409)).error?.code).toBe("invitation_expired");

    const withdrawn = await invite(owner, workspace.id, late.email, "viewer");
    expect(
      (
        await builder.request(`/api/invitations/${withdrawn}`, {
          method: "DELETE",
          ...as(owner, workspace.id),
        })
      ).status,
    ).toBe(204);
    expect((await accept(late, withdrawn, 404)).error?.code).toBe("invitation_not_found");
  });

  it("refuses to invite a member again and lets only admins invite", async () => {
    const { owner, mate, workspace } = await team("editor");
    const again = await builder.request("/api/invitations", {
      method: "POST",
      ...as(owner, workspace.id),
      json: { email: mate.email, role: "viewer" },
    });
    expect(again.status).toBe(409);
    const byEditor = await builder.request("/api/invitations", {
      method: "POST",
      ...as(mate, workspace.id),
      json: { email: "someone@example.com", role: "viewer" },
    });
    expect(byEditor.status).toBe(403);
    expect(await byEditor.json()).toMatchObject({ error: { code: "forbidden_role" } });
  });

  it("lets one person send 30 invitations an hour, then answers 429 with Retry-After", async () => {
    const sender = await builder.signUp();
    const workspace = await createWorkspace(sender, "Busy");
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 31; i++) {
      last = await builder.request("/api/invitations", {
        method: "POST",
        ...as(sender, workspace.id),
        json: { email: `guest${i}@example.com`, role: "viewer" },
      });
      statuses.push(last.status);
    }
    expect(statuses.filter((status) => status === 201)).toHaveLength(30);
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last?.json()).toMatchObject({ error: { code: "too_many_invitations" } });
    clock.advance(Number(last?.headers.get("retry-after")) * 1000 + 1000);
    const later = await builder.request("/api/invitations", {
      method: "POST",
      ...as(sender, workspace.id),
      json: { email: "later@example.com", role: "viewer" },
    });
    expect(later.status).toBe(201);
  });
});

describe("roles", () => {
  it("lets a viewer read but not write, and a promotion takes effect at once", async () => {
    const { owner, mate, workspace } = await team("viewer");
    await createAgent(owner, workspace.id, "owner's");
    expect(await agentNames(mate, workspace.id)).toEqual(["owner's"]);
    const refused = await createAgent(mate, workspace.id, "viewer's");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { code: "forbidden_role", message: expect.stringContaining("you are a viewer") },
    });
    // Viewers see no secrets: a workflow's trigger URL starts runs.
    const workflow = await json<{ id: string; trigger_url: string | null }>(
      await builder.request("/api/workflows", {
        method: "POST",
        ...as(owner, workspace.id),
        json: {
          name: "Hooked",
          graph: {
            nodes: [
              { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
              { id: "done", type: "end", position: { x: 0, y: 0 }, data: { outputs: [] } },
            ],
            edges: [{ id: "e", source: "start", target: "done" }],
          },
        },
      }),
      201,
    );
    expect(workflow.trigger_url).toContain("/api/hooks/");
    const seen = await json<{ trigger_url: string | null }>(
      await builder.request(`/api/workflows/${workflow.id}`, as(mate, workspace.id)),
    );
    expect(seen.trigger_url).toBeNull();
    const promoted = await builder.request(`/api/members/${mate.userId}`, {
      method: "PATCH",
      ...as(owner, workspace.id),
      json: { role: "editor" },
    });
    expect(promoted.status).toBe(200);
    expect((await createAgent(mate, workspace.id, "editor's")).status).toBe(201);
    // Editors build but manage no members, keys or credentials.
    for (const [path, body] of [
      [`/api/members/${owner.userId}`, { role: "viewer" }],
      ["/api/keys", { name: "mine" }],
      ["/api/credentials", { provider: "openai", api_key: "sk-test-123456789" }],
    ] as const) {
      const response = await builder.request(path, {
        method: path.startsWith("/api/members") ? "PATCH" : "POST",
        ...as(mate, workspace.id),
        json: body,
      });
      expect(response.status, path).toBe(403);
    }
  });

  it("never changes the owner's role except by a transfer, after which the old owner is an admin", async () => {
    const { owner, mate, workspace } = await team("admin");
    const demote = await builder.request(`/api/members/${owner.userId}`, {
      method: "PATCH",
      ...as(mate, workspace.id),
      json: { role: "viewer" },
    });
    expect(demote.status).toBe(409);
    expect(await demote.json()).toMatchObject({ error: { code: "owner_role_fixed" } });
    expect(
      (await builder.request(`/api/members/${owner.userId}`, { method: "DELETE", ...as(mate, workspace.id) }))
        .status,
    ).toBe(409);
    // Only the owner hands ownership over.
    const byAdmin = await builder.request("/api/workspaces/current/transfer", {
      method: "POST",
      ...as(mate, workspace.id),
      json: { user_id: mate.userId },
    });
    expect(byAdmin.status).toBe(403);
    const transferred = await builder.request("/api/workspaces/current/transfer", {
      method: "POST",
      ...as(owner, workspace.id),
      json: { user_id: mate.userId },
    });
    expect((await json<Workspace>(transferred)).role).toBe("admin");
    const roles = await json<{ data: { user_id: string; role: string }[] }>(
      await builder.request("/api/members", as(owner, workspace.id)),
    );
    expect(Object.fromEntries(roles.data.map((m) => [m.user_id, m.role]))).toEqual({
      [owner.userId]: "admin",
      [mate.userId]: "owner",
    });
    expect(
      (await builder.request("/api/workspaces/current", { method: "DELETE", ...as(owner, workspace.id) }))
        .status,
    ).toBe(403);
  });

  it("removes a member: their session and their API keys lose the workspace at once", async () => {
    const { owner, mate, workspace } = await team("admin");
    const created = await json<{ key: string; role: string }>(
      await builder.request("/api/keys", { method: "POST", ...as(mate, workspace.id), json: { name: "ci" } }),
      201,
    );
    expect(created.role).toBe("admin");
    await builder.request(`/api/workspaces/${workspace.id}/activate`, {
      method: "POST",
      cookie: mate.cookie,
    });
    // Both used once, so cached authentications must be evicted by the removal.
    expect((await builder.request("/api/agents", { cookie: mate.cookie })).status).toBe(200);
    expect((await builder.request("/api/agents", { bearer: created.key })).status).toBe(200);

    expect(
      (await builder.request(`/api/members/${mate.userId}`, { method: "DELETE", ...as(owner, workspace.id) }))
        .status,
    ).toBe(204);
    for (const response of [
      await builder.request("/api/agents", { cookie: mate.cookie }),
      await builder.request("/api/agents", as(mate, workspace.id)),
    ]) {
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "workspace_not_found" } });
    }
    expect((await builder.request("/api/agents", { bearer: created.key })).status).toBe(401);
    // Their own workspaces stay theirs.
    const mine = await json<{ data: Workspace[] }>(
      await builder.request("/api/workspaces", { cookie: mate.cookie }),
    );
    expect(mine.data.map((w) => w.id)).not.toContain(workspace.id);
    expect(mine.data.some((w) => w.is_personal)).toBe(true);
  });
});

describe("API keys carry a role", () => {
  it("acts in the key's own workspace with its role, never more than its creator's", async () => {
    const { owner, mate, workspace } = await team("editor");
    const viewerKey = await json<{ key: string; role: string }>(
      await builder.request("/api/keys", {
        method: "POST",
        ...as(owner, workspace.id),
        json: { name: "read", role: "viewer" },
      }),
      201,
    );
    expect(viewerKey.role).toBe("viewer");
    expect((await builder.request("/api/agents", { bearer: viewerKey.key })).status).toBe(200);
    const write = await builder.request("/api/agents", {
      method: "POST",
      bearer: viewerKey.key,
      json: { name: "x", provider: "openai", model: "gpt-4o-mini" },
    });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({
      error: { code: "forbidden_role", message: expect.stringContaining("this API key acts as a viewer") },
    });
    const personal = await json<Workspace>(await builder.request("/api/workspaces/current", as(owner)));
    const elsewhere = await builder.request("/api/agents", {
      bearer: viewerKey.key,
      headers: { "x-workspace-id": personal.id },
    });
    expect(elsewhere.status).toBe(404);
    expect((await builder.request("/api/workspaces", { bearer: viewerKey.key })).status).toBe(403);

    // An admin key of a creator later demoted acts with the creator's new role.
    await builder.request(`/api/members/${mate.userId}`, {
      method: "PATCH",
      ...as(owner, workspace.id),
      json: { role: "admin" },
    });
    const adminKey = await json<{ key: string }>(
      await builder.request("/api/keys", {
        method: "POST",
        ...as(mate, workspace.id),
        json: { name: "ops" },
      }),
      201,
    );
    expect(
      (
        await builder.request("/api/keys", {
          method: "POST",
          bearer: adminKey.key,
          json: { name: "from key" },
        })
      ).status,
    ).toBe(201);
    await builder.request(`/api/members/${mate.userId}`, {
      method: "PATCH",
      ...as(owner, workspace.id),
      json: { role: "viewer" },
    });
    expect(
      (await builder.request("/api/keys", { method: "POST", bearer: adminKey.key, json: { name: "again" } }))
        .status,
    ).toBe(403);
    expect((await builder.request("/api/agents", { bearer: adminKey.key })).status).toBe(200);
  });
});

describe("deleting an account that owns shared workspaces", () => {
  it("is refused until the shared workspace has another owner, then deletes only what was its alone", async () => {
    const { owner, mate, workspace } = await team("editor");
    const refused = await builder.request("/api/auth/delete-user", {
      method: "POST",
      cookie: owner.cookie,
      json: { password: "correct horse battery" },
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: { code: "workspace_has_members", message: expect.stringContaining("Team of editors") },
    });
    await builder.request("/api/workspaces/current/transfer", {
      method: "POST",
      ...as(owner, workspace.id),
      json: { user_id: mate.userId },
    });
    const deleted = await builder.request("/api/auth/delete-user", {
      method: "POST",
      cookie: owner.cookie,
      json: { password: "correct horse battery" },
    });
    expect(deleted.status).toBe(200);
    const members = await json<{ data: { user_id: string; role: string }[] }>(
      await builder.request("/api/members", as(mate, workspace.id)),
    );
    expect(members.data).toEqual([expect.objectContaining({ user_id: mate.userId, role: "owner" })]);
  });
});
