import { Readable } from "node:stream";
import { newId } from "@app/core";
import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createWorkflow, edge, node } from "../../test/workflow-support.ts";
import { storedFiles } from "../files/schema.ts";
import { createStorage } from "../storage/open-storage.ts";
import { workspaces } from "../workspaces/schema.ts";

let builder: TestBuilder;
let openai: FakeProvider;
let alice: string;
let bob: string;
const KEY = "sk-compat-good-key-0001";
const SHOP = "https://shop.example.com";

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: KEY });
  // The fake answers with the instructions it was given and the question, so a test reads which
  // version answered whom; every call costs 1000 + 1000 tokens (credits at the default price).
  openai.script = (turn) => ({
    text: `[${turn.messages.find((message) => message.role === "system")?.text ?? ""}] ${turn.messages.findLast((message) => message.role === "user")?.text ?? ""}`,
    usage: { input: 1000, output: 1000 },
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

interface CreatedApp {
  id: string;
  slug: string;
  end_user_secret: string;
  web_url: string;
}

async function createApp(body: Record<string, unknown>, cookie = alice): Promise<CreatedApp> {
  return json<CreatedApp>(await builder.request("/api/apps", { method: "POST", cookie, json: body }), 201);
}

async function agentApp(settings: Record<string, unknown> = {}, instructions = "Be helpful.") {
  const agentId = await createAgentOnFake(builder, alice, openai, KEY, { instructions });
  return { agentId, app: await createApp({ agent_id: agentId, ...settings }) };
}

/** A public API call as an end user (`token`) from a page on `origin` (none: a server). */
function publicCall(
  slug: string,
  path: string,
  init: {
    token?: string;
    origin?: string;
    json?: unknown;
    method?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.origin) headers.origin = init.origin;
  return builder.request(`/api/public/apps/${slug}${path}`, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers,
    ...(init.token ? { bearer: init.token } : {}),
    ...(init.json === undefined ? {} : { json: init.json }),
  });
}

async function anonymous(slug: string): Promise<string> {
  return (await json<{ token: string }>(await publicCall(slug, "/session", { method: "POST" }), 201)).token;
}

function signedToken(secret: string, claims: Record<string, unknown>, expiresIn: string | number = "1h") {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

type ChatAnswer = { conversation_id: string; message: { id: string; content: string } };

async function chat(slug: string, token: string, message: string, conversationId?: string) {
  return publicCall(slug, "/chat", {
    token,
    json: { message, ...(conversationId ? { conversation_id: conversationId } : {}) },
  });
}

describe("apps", () => {
  it("creates an app with its links and secret once, reads, changes, lists and deletes it", async () => {
    const { agentId, app } = await agentApp({ title: "Support", starter_prompts: ["Where is my order?"] });
    expect(app).toMatchObject({
      kind: "agent",
      agent_id: agentId,
      title: "Support",
      rate_limit: { requests: 60, window_seconds: 60 },
      web_url: `${builder.url}/a/${app.slug}`,
      embed: { script_url: `${builder.url}/embed.js` },
    });
    expect(app.slug).toMatch(/^helper-[a-z2-9]{6}$/);
    expect(app.end_user_secret).toMatch(/^eus_/);
    expect((app as unknown as { embed: { snippet: string } }).embed.snippet).toBe(
      `<script src="${builder.url}/embed.js" data-app="${app.slug}" async></script>`,
    );
    const read = await json(await builder.request(`/api/apps/${app.id}`, { cookie: alice }), 200);
    expect(read).not.toHaveProperty("end_user_secret");
    expect(read.end_user_secret_hint).toBe(`…${app.end_user_secret.slice(-4)}`);

    const changed = await json(
      await builder.request(`/api/apps/${app.id}`, {
        method: "PATCH",
        cookie: alice,
        json: {
          slug: `renamed-${app.slug}`,
          allowed_origins: [SHOP],
          theme: { color: "#112233", dark: true },
        },
      }),
      200,
    );
    expect(changed).toMatchObject({
      slug: `renamed-${app.slug}`,
      allowed_origins: [SHOP],
      theme: { dark: true },
    });
    const list = await json<{ data: { id: string }[] }>(
      await builder.request("/api/apps", { cookie: alice }),
      200,
    );
    expect(list.data.map((row) => row.id)).toContain(app.id);
    expect((await builder.request(`/api/apps/${app.id}`, { method: "DELETE", cookie: alice })).status).toBe(
      204,
    );
    expect((await builder.request(`/api/apps/${app.id}`, { cookie: alice })).status).toBe(404);
    expect((await publicCall(`renamed-${app.slug}`, "")).status).toBe(404);
  });

  it("refuses bad settings, a taken slug and another workspace's agent", async () => {
    const { agentId, app } = await agentApp();
    const taken = await builder.request("/api/apps", {
      method: "POST",
      cookie: alice,
      json: { agent_id: agentId, slug: app.slug },
    });
    expect(await json(taken, 409)).toMatchObject({ error: { code: "slug_taken", param: "slug" } });
    const foreign = await builder.request("/api/apps", {
      method: "POST",
      cookie: bob,
      json: { agent_id: agentId },
    });
    expect(await json(foreign, 422)).toMatchObject({
      error: { code: "target_not_found", param: "agent_id" },
    });
    for (const body of [
      { agent_id: agentId, workflow_id: "wf_x" },
      {},
      { agent_id: agentId, allowed_origins: ["https://shop.example.com/path"] },
      { agent_id: agentId, allowed_origins: ["http://shop.example.com"] },
      { agent_id: agentId, slug: "Not A Slug" },
      { agent_id: agentId, theme: { color: "red", dark: false } },
    ]) {
      const refused = await builder.request("/api/apps", { method: "POST", cookie: alice, json: body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
  });

  it("keeps another workspace's app, its keys and conversations out of reach (404)", async () => {
    const { app } = await agentApp();
    for (const [method, path, body] of [
      ["GET", `/api/apps/${app.id}`],
      ["PATCH", `/api/apps/${app.id}`, { title: "Mine now" }],
      ["DELETE", `/api/apps/${app.id}`],
      ["POST", `/api/apps/${app.id}/end-user-secret/rotate`],
      ["POST", `/api/apps/${app.id}/keys`, { name: "steal" }],
      ["GET", `/api/apps/${app.id}/keys`],
      ["GET", `/api/apps/${app.id}/conversations`],
    ] as const) {
      const response = await builder.request(path, { method, cookie: bob, ...(body ? { json: body } : {}) });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const list = await json<{ data: unknown[] }>(await builder.request("/api/apps", { cookie: bob }), 200);
    expect(list.data).toEqual([]);
  });

  it("answers with the published version after the draft changes, until the next publish", async () => {
    const { agentId, app } = await agentApp({}, "Version one.");
    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    await json(
      await builder.request(`/api/agents/${agentId}`, {
        method: "PATCH",
        cookie: alice,
        json: { instructions: "Draft two." },
      }),
      200,
    );
    const token = await anonymous(app.slug);
    const first = await json<ChatAnswer>(await chat(app.slug, token, "hello"), 200);
    expect(first.message.content).toBe("[Version one.] hello");
    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    const second = await json<ChatAnswer>(await chat(app.slug, token, "again", first.conversation_id), 200);
    expect(second.message.content).toBe("[Draft two.] again");
    const stored = await json<{ version: number; app_id: string }>(
      await builder.request(`/api/conversations/${first.conversation_id}`, { cookie: alice }),
      200,
    );
    expect(stored).toMatchObject({ version: 1, app_id: app.id });
  });
});

describe("end users", () => {
  it("speaks to anonymous, host-signed and app-key end users, and refuses forged, expired and other-app tokens", async () => {
    const { app } = await agentApp();
    const other = await agentApp();

    const anonymousToken = await anonymous(app.slug);
    expect((await chat(app.slug, anonymousToken, "hi")).status).toBe(200);

    const signed = await signedToken(app.end_user_secret, { sub: "customer-42", name: "Ada" });
    expect((await chat(app.slug, signed, "hi")).status).toBe(200);

    const key = await json<{ key: string }>(
      await builder.request(`/api/apps/${app.id}/keys`, {
        method: "POST",
        cookie: alice,
        json: { name: "backend" },
      }),
      201,
    );
    expect(key.key).toMatch(/^ak_/);
    const viaKey = await publicCall(app.slug, "/chat", {
      token: key.key,
      headers: { "x-end-user": "customer-42" },
      json: { message: "from the backend" },
    });
    expect(viaKey.status).toBe(200);

    const refusals: [string, string, Record<string, string>?][] = [
      [
        "expired",
        await signedToken(app.end_user_secret, { sub: "customer-42" }, Math.floor(Date.now() / 1000) - 60),
      ],
      ["forged", await signedToken("eus_not-the-secret-of-this-app-000000000000", { sub: "customer-42" })],
      ["another app's secret", await signedToken(other.app.end_user_secret, { sub: "customer-42" })],
      ["another app's anonymous token", await anonymous(other.app.slug)],
      ["no subject", await signedToken(app.end_user_secret, {})],
      [
        "unsigned",
        `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x","exp":9999999999}').toString("base64url")}.`,
      ],
      ["garbage", "not-a-token"],
      ["an app key without X-End-User", key.key],
      ["a workspace API key", "bk_0000000000000000000000000000000000000000000"],
    ];
    for (const [why, token, headers] of refusals) {
      const response = await publicCall(app.slug, "/chat", {
        token,
        json: { message: "hi" },
        ...(headers ? { headers } : {}),
      });
      expect(response.status, why).toBe(401);
    }
    expect((await publicCall(app.slug, "/chat", { json: { message: "hi" } })).status).toBe(401);

    // An app key reaches this app's public API and nothing else.
    const otherApp = await publicCall(other.app.slug, "/chat", {
      token: key.key,
      headers: { "x-end-user": "customer-42" },
      json: { message: "hi" },
    });
    expect(otherApp.status).toBe(401);
    expect((await builder.request("/api/agents", { bearer: key.key })).status).toBe(401);
    expect((await builder.request(`/api/apps/${app.id}`, { bearer: key.key })).status).toBe(401);

    // A rotated secret stops the tokens signed with the old one.
    await json(
      await builder.request(`/api/apps/${app.id}/end-user-secret/rotate`, { method: "POST", cookie: alice }),
      200,
    );
    expect((await chat(app.slug, signed, "hi")).status).toBe(401);
  });

  it("shows each end user only their own conversations and answers", async () => {
    const { app } = await agentApp();
    const ann = await anonymous(app.slug);
    const ben = await signedToken(app.end_user_secret, { sub: "ben" });
    const annTurn = await json<ChatAnswer>(await chat(app.slug, ann, "ann's question"), 200);
    await json<ChatAnswer>(await chat(app.slug, ben, "ben's question"), 200);

    type Page = { data: { id: string; title: string }[] };
    const annList = await json<Page>(await publicCall(app.slug, "/conversations", { token: ann }), 200);
    expect(annList.data.map((row) => row.title)).toEqual(["ann's question"]);
    const benList = await json<Page>(await publicCall(app.slug, "/conversations", { token: ben }), 200);
    expect(benList.data.map((row) => row.title)).toEqual(["ben's question"]);

    const annMessages = await json<{ data: { role: string; content: string }[] }>(
      await publicCall(app.slug, `/conversations/${annTurn.conversation_id}/messages`, { token: ann }),
      200,
    );
    expect(annMessages.data.map((row) => row.role)).toEqual(["assistant", "user"]);
    expect(annMessages.data[0]).not.toHaveProperty("tool_calls");
    expect(
      (await publicCall(app.slug, `/conversations/${annTurn.conversation_id}/messages`, { token: ben }))
        .status,
    ).toBe(404);
    expect((await chat(app.slug, ben, "hijack", annTurn.conversation_id)).status).toBe(404);
    const stolenRating = await publicCall(app.slug, `/messages/${annTurn.message.id}/feedback`, {
      token: ben,
      json: { rating: "dislike" },
    });
    expect(stolenRating.status).toBe(404);
  });

  it("refuses pages on origins the app does not allow, and answers CORS to those it does", async () => {
    const { app } = await agentApp({ allowed_origins: [SHOP] });
    const token = await anonymous(app.slug);
    const refused = await publicCall(app.slug, "/chat", {
      token,
      origin: "https://evil.example",
      json: { message: "hi" },
    });
    expect(await json(refused, 403)).toMatchObject({ error: { code: "origin_not_allowed" } });
    expect((await publicCall(app.slug, "", { origin: "https://evil.example" })).status).toBe(403);

    const allowed = await publicCall(app.slug, "/chat", { token, origin: SHOP, json: { message: "hi" } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(SHOP);
    const preflight = await fetch(`${builder.url}/api/public/apps/${app.slug}/chat`, {
      method: "OPTIONS",
      headers: {
        origin: SHOP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
    // The builder's own origin (the web app) is always allowed.
    expect((await publicCall(app.slug, "", { origin: builder.url })).status).toBe(200);
  });

  it("limits each end user's rate (429 with Retry-After) without slowing the others", async () => {
    const { app } = await agentApp({ rate_limit: { requests: 2, window_seconds: 60 } });
    const ann = await anonymous(app.slug);
    const ben = await anonymous(app.slug);
    expect((await chat(app.slug, ann, "1")).status).toBe(200);
    expect((await chat(app.slug, ann, "2")).status).toBe(200);
    const limited = await chat(app.slug, ann, "3");
    expect(await json(limited, 429)).toMatchObject({ error: { code: "end_user_rate_limited" } });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await chat(app.slug, ben, "1")).status).toBe(200);
  });

  it("refuses an end user past the daily credit allowance with 402, others unaffected", async () => {
    const { app } = await agentApp({ end_user_credit_limit: 1 });
    const ann = await anonymous(app.slug);
    expect((await chat(app.slug, ann, "spend")).status).toBe(200);
    const over = await chat(app.slug, ann, "more");
    expect(await json(over, 402)).toMatchObject({ error: { code: "end_user_limit_reached" } });
    expect((await chat(app.slug, await anonymous(app.slug), "fresh")).status).toBe(200);
  });

  it("stores end users' ratings and shows them in the team's view of the app, filtered by end user and rating", async () => {
    const { app } = await agentApp();
    const ann = await signedToken(app.end_user_secret, { sub: "ann@example.com" });
    const ben = await anonymous(app.slug);
    const annTurn = await json<ChatAnswer>(await chat(app.slug, ann, "bad answer?"), 200);
    const benTurn = await json<ChatAnswer>(await chat(app.slug, ben, "good answer?"), 200);
    const rate = (token: string, messageId: string, body: Record<string, unknown>) =>
      publicCall(app.slug, `/messages/${messageId}/feedback`, { token, json: body });
    expect(
      await json(
        await rate(ann, annTurn.message.id, { rating: "dislike", comment: "Wrong order number" }),
        200,
      ),
    ).toEqual({
      message_id: annTurn.message.id,
      rating: "dislike",
      comment: "Wrong order number",
    });
    await json(await rate(ben, benTurn.message.id, { rating: "like" }), 200);

    type Page = { data: { id: string; end_user: { external_id: string; kind: string } | null }[] };
    const disliked = await json<Page>(
      await builder.request(`/api/apps/${app.id}/conversations?rating=dislike`, { cookie: alice }),
      200,
    );
    expect(disliked.data.map((row) => row.id)).toEqual([annTurn.conversation_id]);
    expect(disliked.data[0]?.end_user).toMatchObject({ external_id: "ann@example.com", kind: "customer" });
    const annOnly = await json<Page>(
      await builder.request(
        `/api/apps/${app.id}/conversations?end_user=${encodeURIComponent("ann@example.com")}`,
        { cookie: alice },
      ),
      200,
    );
    expect(annOnly.data.map((row) => row.id)).toEqual([annTurn.conversation_id]);
    const all = await json<Page>(
      await builder.request(`/api/apps/${app.id}/conversations`, { cookie: alice }),
      200,
    );
    expect(all.data).toHaveLength(2);

    const messages = await json<{ data: { role: string; feedback: unknown[] }[] }>(
      await builder.request(`/api/conversations/${annTurn.conversation_id}/messages`, { cookie: alice }),
      200,
    );
    expect(messages.data[0]?.feedback).toMatchObject([
      { source: "user", rating: "dislike", comment: "Wrong order number" },
    ]);
    const ownView = await json<{ data: { feedback: unknown }[] }>(
      await publicCall(app.slug, `/conversations/${annTurn.conversation_id}/messages`, { token: ann }),
      200,
    );
    expect(ownView.data[0]?.feedback).toEqual({ rating: "dislike", comment: "Wrong order number" });
    await json(await rate(ann, annTurn.message.id, { rating: null }), 200);
    const cleared = await json<Page>(
      await builder.request(`/api/apps/${app.id}/conversations?rating=dislike`, { cookie: alice }),
      200,
    );
    expect(cleared.data).toEqual([]);
  });

  it("streams a public chat with the agent chat's events and no tool inputs or outputs", async () => {
    const { app } = await agentApp();
    const token = await anonymous(app.slug);
    const response = await publicCall(app.slug, "/chat", {
      token,
      json: { message: "stream please" },
      headers: { accept: "text/event-stream" },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("event: conversation");
    expect(text).toContain("event: text_delta");
    expect(text).toContain("event: finish");
  });
});

describe("workflow apps", () => {
  it("runs the workflow for an end user with the Start inputs, and records the app and end user on the run", async () => {
    const workflowId = await createWorkflow(builder, alice, {
      nodes: [
        node("start", "start", {
          inputs: [{ name: "city", type: "string", required: true, description: "Where" }],
        }),
        node("done", "end", { outputs: [{ name: "greeting", value: "Hello {{start.city}}" }] }),
      ],
      edges: [edge("start", "done")],
    });
    const app = await createApp({ workflow_id: workflowId });
    const described = await json(await publicCall(app.slug, ""), 200);
    expect(described).toMatchObject({
      kind: "workflow",
      inputs: [{ name: "city", type: "string", required: true, description: "Where" }],
    });
    const token = await anonymous(app.slug);
    const run = await json<{ id: string; status: string; outputs: Record<string, string> }>(
      await publicCall(app.slug, "/runs", { token, json: { inputs: { city: "Jakarta" } } }),
      200,
    );
    expect(run).toMatchObject({ status: "succeeded", outputs: { greeting: "Hello Jakarta" } });
    const stored = await json(await builder.request(`/api/runs/${run.id}`, { cookie: alice }), 200);
    expect(stored).toMatchObject({ trigger: "app", app_id: app.id });
    expect(stored.end_user_id).toMatch(/^eu_/);
    expect((await publicCall(app.slug, "/runs", { token, json: { inputs: {} } })).status).toBe(422);
    expect((await chat(app.slug, token, "hi")).status).toBe(404);
  });

  it("gives end users signed links to the files a run produced; a forged link or the workspace's own URL does not open", async () => {
    const carol = await builder.signUp();
    const bytes = Buffer.from("\x89PNG fake image");
    const workflowId = await createWorkflow(builder, carol.cookie, {
      nodes: [
        node("start", "start", { inputs: [] }),
        node("done", "end", { outputs: [{ name: "image", value: "pending" }] }),
      ],
      edges: [edge("start", "done")],
    });
    const [workspace] = await builder.deps.db
      .select()
      .from(workspaces)
      .where(eq(workspaces.ownerUserId, carol.userId));
    const fileId = newId("file");
    await createStorage(builder.deps.config.storage).put(`test/${fileId}`, Readable.from([bytes]));
    await builder.deps.db.insert(storedFiles).values({
      id: fileId,
      workspaceId: workspace?.id ?? "",
      storageKey: `test/${fileId}`,
      contentType: "image/png",
      sizeBytes: bytes.length,
      createdAt: new Date(),
    });
    const fileUrl = `${builder.url}/api/files/${fileId}`;
    await json(
      await builder.request(`/api/workflows/${workflowId}`, {
        method: "PATCH",
        cookie: carol.cookie,
        json: {
          graph: {
            nodes: [
              node("start", "start", { inputs: [] }),
              node("done", "end", { outputs: [{ name: "image", value: fileUrl }] }),
            ],
            edges: [edge("start", "done")],
          },
        },
      }),
      200,
    );
    const app = await createApp({ workflow_id: workflowId }, carol.cookie);
    const run = await json<{ outputs: { image: string } }>(
      await publicCall(app.slug, "/runs", { token: await anonymous(app.slug), json: { inputs: {} } }),
      200,
    );
    expect(run.outputs.image).toMatch(
      new RegExp(`^${builder.url}/api/public/files/${fileId}\\?expires=\\d+&signature=`),
    );
    const opened = await fetch(run.outputs.image);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await opened.arrayBuffer())).toEqual(bytes);
    expect((await fetch(`${run.outputs.image.slice(0, -4)}AAAA`)).status).toBe(404);
    expect(
      (await fetch(`${builder.url}/api/public/files/${fileId}?expires=9999999999&signature=x`)).status,
    ).toBe(404);
    expect((await fetch(fileUrl)).status).toBe(401);
  });
});
