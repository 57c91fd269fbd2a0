import { type FakeMcp, freePort, startFakeMcp } from "@app/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { mcpServers } from "./schema.ts";

const TOKEN = "mcp-token-PLAINTEXT-never-stored-7788";

let builder: TestBuilder;
let strictBuilder: TestBuilder;
let open: FakeMcp;
let guarded: FakeMcp;
let sseOnly: FakeMcp;
let alice: string;
let bob: string;

beforeAll(async () => {
  [open, guarded, sseOnly] = await Promise.all([
    startFakeMcp(),
    startFakeMcp({ bearerToken: TOKEN }),
    startFakeMcp({ sseOnly: true }),
  ]);
  // The fakes listen on loopback, which only a builder allowing private URLs may reach.
  [builder, strictBuilder] = await Promise.all([
    startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } }),
    startTestBuilder(),
  ]);
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});

afterAll(async () => {
  await Promise.all([
    builder?.stop(),
    strictBuilder?.stop(),
    open?.close(),
    guarded?.close(),
    sseOnly?.close(),
  ]);
});

async function createServer(cookie: string, body: Record<string, unknown>, on = builder) {
  const response = await on.request("/api/mcp-servers", { method: "POST", cookie, json: body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("MCP server connections", () => {
  it("stores a bearer token and headers encrypted, shows only their hint and names, and sends them when testing", async () => {
    const created = await createServer(alice, {
      name: "Guarded",
      url: guarded.url,
      bearer_token: TOKEN,
      headers: { "X-Tenant": "acme" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Guarded",
      transport: "auto",
      auth: "bearer",
      header_names: ["X-Tenant"],
      secret_hint: "…7788",
      tools: null,
    });
    expect(JSON.stringify(created.body)).not.toContain("PLAINTEXT");
    const [row] = await builder.deps.db
      .select()
      .from(mcpServers)
      .where(eq(mcpServers.id, String(created.body.id)));
    expect(row?.encryptedSecrets).toBeTruthy();
    expect(row?.encryptedSecrets).not.toContain("PLAINTEXT");
    expect(row?.encryptedSecrets).not.toContain("acme");

    const test = await builder.request(`/api/mcp-servers/${created.body.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status).toBe(200);
    const check = (await test.json()) as { transport: string; server: unknown; tools: { name: string }[] };
    expect(check.transport).toBe("streamable_http");
    expect(check.server).toEqual({ name: "fake-mcp", version: "1.0.0" });
    expect(check.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["echo", "add", "weather", "fail"]),
    );
    const echo = check.tools.find((tool) => tool.name === "echo") as unknown as {
      input_schema: { properties: Record<string, unknown> };
    };
    expect(Object.keys(echo.input_schema.properties)).toEqual(["text"]);

    // The listing is remembered on the connection for agents and the studio.
    const fetched = (await (
      await builder.request(`/api/mcp-servers/${created.body.id}`, { cookie: alice })
    ).json()) as { tools: { name: string }[]; tools_checked_at: string | null };
    expect(fetched.tools.map((tool) => tool.name)).toContain("weather");
    expect(fetched.tools_checked_at).not.toBeNull();
  });

  it("a server that refuses the token answers 424 mcp_server_rejected_credentials", async () => {
    const created = await createServer(alice, {
      name: "Wrong token",
      url: guarded.url,
      bearer_token: "nope-nope-nope",
    });
    const test = await builder.request(`/api/mcp-servers/${created.body.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status).toBe(424);
    const body = (await test.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("mcp_server_rejected_credentials");
    expect(body.error.message).toContain("Wrong token");
  });

  it("falls back to the older HTTP+SSE transport when the server does not speak Streamable HTTP", async () => {
    const created = await createServer(alice, { name: "Old", url: sseOnly.url });
    const test = await builder.request(`/api/mcp-servers/${created.body.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status).toBe(200);
    const check = (await test.json()) as { transport: string; tools: { name: string }[] };
    expect(check.transport).toBe("sse");
    expect(check.tools.map((tool) => tool.name)).toContain("echo");
  });

  it("a server that is not running answers 502 mcp_server_unreachable, naming the server", async () => {
    const port = await freePort();
    const created = await createServer(alice, { name: "Gone", url: `http://127.0.0.1:${port}/mcp` });
    const test = await builder.request(`/api/mcp-servers/${created.body.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(test.status).toBe(502);
    const body = (await test.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("mcp_server_unreachable");
    expect(body.error.message).toContain('"Gone"');
    expect(body.error.message).toContain("ECONNREFUSED");
  });

  it("a server answering 500 is unreachable, not a fallback to SSE", async () => {
    const broken = await startFakeMcp({ failWith: 500 });
    try {
      const created = await createServer(alice, { name: "Broken", url: broken.url });
      const test = await builder.request(`/api/mcp-servers/${created.body.id}/test`, {
        method: "POST",
        cookie: alice,
      });
      expect(test.status).toBe(502);
      expect(((await test.json()) as { error: { message: string } }).error.message).toContain("500");
    } finally {
      await broken.close();
    }
  });

  it("refuses a loopback URL when private URLs are not allowed", async () => {
    const carol = (await strictBuilder.signUp()).cookie;
    const created = await createServer(carol, { name: "Local", url: open.url }, strictBuilder);
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject({ error: { code: "mcp_url_refused", param: "url" } });
  });

  it("refuses an Authorization header next to a bearer token, and headers the transport owns", async () => {
    const both = await createServer(alice, {
      name: "Both",
      url: open.url,
      bearer_token: TOKEN,
      headers: { Authorization: "Basic x" },
    });
    expect(both.status).toBe(422);
    const reserved = await createServer(alice, {
      name: "Session",
      url: open.url,
      headers: { "Mcp-Session-Id": "x" },
    });
    expect(reserved.status).toBe(422);
  });

  it("lists the workspace's own servers only; another workspace's server is a 404 for get, test and delete", async () => {
    const created = await createServer(alice, { name: "Mine", url: open.url });
    const id = String(created.body.id);
    const bobs = (await (await builder.request("/api/mcp-servers", { cookie: bob })).json()) as {
      data: unknown[];
    };
    expect(bobs.data).toEqual([]);
    const alices = (await (await builder.request("/api/mcp-servers", { cookie: alice })).json()) as {
      data: { id: string }[];
    };
    expect(alices.data.map((server) => server.id)).toContain(id);
    expect((await builder.request(`/api/mcp-servers/${id}`, { cookie: bob })).status).toBe(404);
    expect(
      (await builder.request(`/api/mcp-servers/${id}/test`, { method: "POST", cookie: bob })).status,
    ).toBe(404);
    expect((await builder.request(`/api/mcp-servers/${id}`, { method: "DELETE", cookie: bob })).status).toBe(
      404,
    );
    expect(
      (await builder.request(`/api/mcp-servers/${id}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect((await builder.request(`/api/mcp-servers/${id}`, { cookie: alice })).status).toBe(404);
  });
});
