import { type FakeMcp, startFakeMcp } from "@app/testing";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { node, nodeOf, runGraph, singleNodeGraph } from "../../test/workflow-support.ts";
import { backgroundOAuth } from "./mcp-oauth.ts";
import { type McpServerRow, mcpServers } from "./schema.ts";

let builder: TestBuilder;
let protectedMcp: FakeMcp;
let alice: string;
let bob: string;

beforeAll(async () => {
  protectedMcp = await startFakeMcp({ oauth: true });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});

afterAll(async () => {
  await builder?.stop();
  await protectedMcp?.close();
});

async function storedOauth(id: string): Promise<string | null> {
  const [row] = await builder.deps.db.select().from(mcpServers).where(eq(mcpServers.id, id));
  return row?.encryptedOauth ?? null;
}

const echoGraph = (serverId: string) =>
  singleNodeGraph(
    node("call", "tool", {
      tool: "mcp_tool",
      args: { server_id: serverId, tool: "echo", arguments: { text: "hi" } },
    }),
    { out: "{{call.text}}" },
  );

describe("OAuth 2.1 authorization of MCP servers", () => {
  let serverId: string;
  let callbackUrl: URL;

  it("a server that requires OAuth is refused until it is authorized", async () => {
    const created = await builder.request("/api/mcp-servers", {
      method: "POST",
      cookie: alice,
      json: { name: "Protected", url: protectedMcp.url, oauth: true },
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; auth: string };
    expect(body.auth).toBe("oauth");
    serverId = body.id;
    const test = await builder.request(`/api/mcp-servers/${serverId}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status).toBe(424);
    expect(((await test.json()) as { error: { message: string } }).error.message).toContain(
      "authorize it again",
    );
  });

  it("starts the flow with discovery, dynamic client registration and a PKCE S256 challenge for the resource", async () => {
    const started = await builder.request(`/api/mcp-servers/${serverId}/authorize`, {
      method: "POST",
      cookie: alice,
    });
    expect(started.status, await started.clone().text()).toBe(200);
    const url = new URL(((await started.json()) as { authorization_url: string }).authorization_url);
    expect(url.origin + url.pathname).toBe(`${new URL(protectedMcp.url).origin}/authorize`);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("resource")).toBe(protectedMcp.url);
    expect(url.searchParams.get("state")).toMatch(new RegExp(`^${serverId}\\.`));
    expect(protectedMcp.oauth?.clients).toHaveLength(1);
    expect(protectedMcp.oauth?.clients[0]?.redirect_uris).toEqual([
      `${builder.url}/api/mcp-servers/oauth/callback`,
    ]);

    // The person's browser: the fake approves at once and redirects back to the builder.
    const approval = await fetch(url, { redirect: "manual" });
    expect(approval.status).toBe(302);
    callbackUrl = new URL(approval.headers.get("location") ?? "");
    expect(callbackUrl.pathname).toBe("/api/mcp-servers/oauth/callback");
  });

  it("another workspace cannot start the authorization of the server", async () => {
    const response = await builder.request(`/api/mcp-servers/${serverId}/authorize`, {
      method: "POST",
      cookie: bob,
    });
    expect(response.status).toBe(404);
  });

  it("a forged state is refused and exchanges nothing", async () => {
    const forged = new URL(callbackUrl);
    forged.searchParams.set("state", `${serverId}.not-the-state`);
    const response = await fetch(forged);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "mcp_oauth_state_invalid",
    );
    expect(protectedMcp.oauth?.grants).toEqual([]);
  });

  it("the callback exchanges the code with the verifier and stores the tokens encrypted", async () => {
    const response = await fetch(callbackUrl);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.text()).toContain("Protected is connected");
    expect(protectedMcp.oauth?.grants).toEqual(["authorization_code"]);
    const sealed = await storedOauth(serverId);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("at_");
    expect(sealed).not.toContain("rt_");

    // The same callback again (a replayed code and state) is refused.
    const replay = await fetch(callbackUrl);
    expect(replay.status).toBe(400);
  });

  it("then the server answers, and its tools run with the access token", async () => {
    const test = await builder.request(`/api/mcp-servers/${serverId}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status, await test.clone().text()).toBe(200);
    const run = await runGraph(builder, alice, echoGraph(serverId));
    expect(run.status, JSON.stringify(nodeOf(run, "call")?.error)).toBe("succeeded");
    expect(run.outputs).toEqual({ out: "echo: hi" });
    expect(protectedMcp.calls.at(-1)?.authorization).toMatch(/^Bearer at_/);
  });

  it("an expired access token is refreshed and the new tokens are stored, without the person", async () => {
    const before = await storedOauth(serverId);
    const tokenBefore = protectedMcp.calls.at(-1)?.authorization;
    protectedMcp.oauth?.expireAccessTokens();
    const run = await runGraph(builder, alice, echoGraph(serverId));
    expect(run.status, JSON.stringify(nodeOf(run, "call")?.error)).toBe("succeeded");
    expect(protectedMcp.oauth?.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(protectedMcp.calls.at(-1)?.authorization).not.toBe(tokenBefore);
    const after = await storedOauth(serverId);
    expect(after).not.toBe(before);
  });

  it("a refresh token rotated by another process is picked up from the database, not thrown away", async () => {
    // Another process refreshes first: the server rotates the refresh token this process holds.
    const [row] = await builder.deps.db.select().from(mcpServers).where(eq(mcpServers.id, serverId));
    const otherProcess = backgroundOAuth(builder.deps, row as McpServerRow);
    expect(otherProcess).toBeDefined();
    protectedMcp.oauth?.expireAccessTokens();
    await auth(otherProcess as OAuthClientProvider, { serverUrl: protectedMcp.url });
    expect(protectedMcp.oauth?.grants.at(-1)).toBe("refresh_token");
    const grantsBefore = protectedMcp.oauth?.grants.length ?? 0;
    protectedMcp.oauth?.expireAccessTokens();

    // This process's pooled connection still holds the old refresh token.
    const run = await runGraph(builder, alice, echoGraph(serverId));
    expect(run.status, JSON.stringify(nodeOf(run, "call")?.error)).toBe("succeeded");
    expect(protectedMcp.oauth?.grants.length).toBe(grantsBefore + 1);
    const test = await builder.request(`/api/mcp-servers/${serverId}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status).toBe(200);
  });
});
