import {
  type FakeProvider,
  type FakeReplicate,
  startFakeAnthropic,
  startFakeGoogle,
  startFakeOpenAI,
  startFakeReplicate,
} from "@app/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { credentials } from "./schema.ts";

const OPENAI_KEY = "sk-proj-PLAINTEXT-never-stored-4242";
const REPLICATE_TOKEN = "r8_PLAINTEXTreplicateToken0000009876";

let builder: TestBuilder;
let strictBuilder: TestBuilder;
let openai: FakeProvider;
let anthropic: FakeProvider;
let google: FakeProvider;
let replicate: FakeReplicate;
let alice: string;
let bob: string;

beforeAll(async () => {
  [openai, anthropic, google, replicate] = await Promise.all([
    startFakeOpenAI({ apiKey: OPENAI_KEY, models: ["gpt-4o-mini", "gpt-fake-live-only"] }),
    startFakeAnthropic({ apiKey: "sk-ant-good-key-0002" }),
    startFakeGoogle({ apiKey: "g-good-key-0003" }),
    startFakeReplicate({ apiToken: REPLICATE_TOKEN }),
  ]);
  // The fakes listen on loopback, which only a builder allowing private URLs may reach.
  [builder, strictBuilder] = await Promise.all([
    startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1", REPLICATE_BASE_URL: replicate.baseUrl } }),
    startTestBuilder(),
  ]);
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await Promise.all([builder?.stop(), strictBuilder?.stop()]);
  await Promise.all([openai?.close(), anthropic?.close(), google?.close(), replicate?.close()]);
});

async function addCredential(cookie: string, body: Record<string, unknown>, target = builder) {
  return target.request("/api/credentials", { method: "POST", cookie, json: body });
}

describe("credentials", () => {
  it("stores a key encrypted at rest and shows only a hint", async () => {
    const response = await addCredential(alice, {
      provider: "openai",
      api_key: OPENAI_KEY,
      base_url: openai.baseUrl,
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as Record<string, unknown>;
    expect(created).toMatchObject({
      provider: "openai",
      key_hint: "sk-…4242",
      base_url: openai.baseUrl,
      name: "OpenAI key",
    });
    expect(JSON.stringify(created)).not.toContain("PLAINTEXT");

    const list = await (await builder.request("/api/credentials", { cookie: alice })).text();
    expect(list).toContain(String(created.id));
    expect(list).not.toContain("PLAINTEXT");

    const rows = await builder.deps.db
      .select()
      .from(credentials)
      .where(eq(credentials.id, String(created.id)));
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).toContain(String(created.id));
    expect(stored).not.toContain("PLAINTEXT");
    expect(stored).not.toContain(Buffer.from(OPENAI_KEY).toString("base64"));
    expect(stored).not.toContain(Buffer.from(OPENAI_KEY).toString("base64url"));
  });

  it("checks a key with the provider's model listing: 200 for a good key, 424 with the provider's message for a bad one", async () => {
    const good = (await (
      await addCredential(alice, { provider: "openai", api_key: OPENAI_KEY, base_url: openai.baseUrl })
    ).json()) as { id: string };
    const checked = await builder.request(`/api/credentials/${good.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(checked.status).toBe(200);
    expect(await checked.json()).toMatchObject({
      ok: true,
      provider: "openai",
      model_count: 2,
      account: null,
    });

    const bad = (await (
      await addCredential(alice, {
        provider: "openai",
        api_key: "sk-proj-wrong-key-0000",
        base_url: openai.baseUrl,
      })
    ).json()) as { id: string };
    const refused = await builder.request(`/api/credentials/${bad.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(refused.status).toBe(424);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("provider_rejected_credentials");
    expect(body.error.message).toContain("Incorrect API key provided.");
    expect(body.error.message).not.toContain("wrong-key");
  });

  it("checks Anthropic and Google keys through their own protocols", async () => {
    const cases = [
      { provider: "anthropic", good: "sk-ant-good-key-0002", fake: anthropic },
      { provider: "google", good: "g-good-key-0003", fake: google },
    ];
    for (const { provider, good, fake } of cases) {
      for (const [key, status] of [
        [good, 200],
        ["definitely-not-the-key", 424],
      ] as const) {
        const created = (await (
          await addCredential(alice, { provider, api_key: key, base_url: fake.baseUrl })
        ).json()) as { id: string };
        const response = await builder.request(`/api/credentials/${created.id}/test`, {
          method: "POST",
          cookie: alice,
        });
        expect(response.status, `${provider} ${key}`).toBe(status);
      }
    }
  });

  it("answers 502 when the provider cannot be reached", async () => {
    const closed = await startFakeOpenAI();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const created = (await (
      await addCredential(alice, {
        provider: "openai-compatible",
        api_key: "sk-any-key-1234",
        base_url: baseUrl,
      })
    ).json()) as { id: string };
    const response = await builder.request(`/api/credentials/${created.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: "provider_unreachable" } });
  });

  it("merges the live model listing into the catalogue", async () => {
    const { cookie } = await builder.signUp();
    const before = (await (await builder.request("/api/providers/openai/models", { cookie })).json()) as {
      live: { status: string };
      data: { id: string }[];
    };
    expect(before.live.status).toBe("not_configured");
    expect(before.data.map((model) => model.id)).toContain("gpt-4o");

    await addCredential(cookie, { provider: "openai", api_key: OPENAI_KEY, base_url: openai.baseUrl });
    const after = (await (await builder.request("/api/providers/openai/models", { cookie })).json()) as {
      live: { status: string };
      data: { id: string; source: string; capabilities: string[] }[];
    };
    expect(after.live.status).toBe("ok");
    expect(after.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: "gpt-4o-mini",
          source: "both",
          capabilities: expect.arrayContaining(["tools"]),
        }),
        expect.objectContaining({ id: "gpt-4o", source: "catalogue" }),
        { id: "gpt-fake-live-only", source: "live", capabilities: [] },
      ]),
    );
    expect((await builder.request("/api/providers/acme/models", { cookie })).status).toBe(404);
  });

  it("refuses an unknown provider, and openai-compatible without a base_url, with 422", async () => {
    const unknown = await addCredential(alice, { provider: "acme", api_key: "k" });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ error: { param: "provider" } });
    const noUrl = await addCredential(alice, { provider: "openai-compatible", api_key: "ollama" });
    expect(noUrl.status).toBe(422);
    expect(await noUrl.json()).toMatchObject({ error: { code: "base_url_required", param: "base_url" } });
  });

  it("refuses base URLs on private, loopback or link-local addresses unless ALLOW_PRIVATE_URLS is set", async () => {
    const { cookie } = await strictBuilder.signUp();
    for (const baseUrl of [
      "http://127.0.0.1:11434/v1",
      "http://localhost:11434/v1",
      "http://169.254.169.254/latest",
      "http://[::1]:8000/v1",
      "http://10.1.2.3/v1",
    ]) {
      const response = await addCredential(
        cookie,
        { provider: "openai-compatible", api_key: "ollama", base_url: baseUrl },
        strictBuilder,
      );
      expect(response.status, baseUrl).toBe(422);
      expect(await response.json()).toMatchObject({ error: { code: "base_url_refused", param: "base_url" } });
    }
  });

  it("keeps credentials per workspace: another user gets 404 and an empty list", async () => {
    const created = (await (
      await addCredential(alice, { provider: "openai", api_key: OPENAI_KEY, base_url: openai.baseUrl })
    ).json()) as { id: string };
    for (const [method, path] of [
      ["POST", `/api/credentials/${created.id}/test`],
      ["DELETE", `/api/credentials/${created.id}`],
    ] as const) {
      const response = await builder.request(path, { method, cookie: bob });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "credential_not_found" } });
    }
    const bobsList = (await (await builder.request("/api/credentials", { cookie: bob })).json()) as {
      data: unknown[];
    };
    expect(bobsList.data).toEqual([]);
    const bobsModels = (await (
      await builder.request(`/api/providers/openai/models?credential_id=${created.id}`, { cookie: bob })
    ).json()) as {
      error: { code: string };
    };
    expect(bobsModels.error.code).toBe("credential_not_found");

    expect(
      (await builder.request(`/api/credentials/${created.id}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect(
      (await builder.request(`/api/credentials/${created.id}/test`, { method: "POST", cookie: alice }))
        .status,
    ).toBe(404);
  });

  it("stores a Replicate token without a base_url and checks it with Replicate's account call", async () => {
    const withUrl = await addCredential(alice, {
      provider: "replicate",
      api_key: REPLICATE_TOKEN,
      base_url: replicate.baseUrl,
    });
    expect(withUrl.status).toBe(422);
    expect(await withUrl.json()).toMatchObject({ error: { code: "base_url_refused", param: "base_url" } });

    const response = await addCredential(alice, { provider: "replicate", api_key: REPLICATE_TOKEN });
    expect(response.status).toBe(201);
    const text = await response.text();
    expect(text).not.toContain("PLAINTEXT");
    const created = JSON.parse(text) as { id: string };
    expect(created).toMatchObject({
      provider: "replicate",
      name: "Replicate key",
      key_hint: "r8_…9876",
      base_url: null,
    });
    const checked = await builder.request(`/api/credentials/${created.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(checked.status).toBe(200);
    expect(await checked.json()).toMatchObject({
      ok: true,
      provider: "replicate",
      model_count: null,
      account: "fake-account-1",
    });
    expect(replicate.requests.at(-1)).toMatchObject({ route: "GET /v1/account", token: REPLICATE_TOKEN });

    // Someone else's token, like a refused provider key, is a 424 that names the refusal, not the token.
    const wrong = "r8_PLAINTEXTnotAnAccountToken000001234";
    const bad = (await (await addCredential(alice, { provider: "replicate", api_key: wrong })).json()) as {
      id: string;
    };
    const refused = await builder.request(`/api/credentials/${bad.id}/test`, {
      method: "POST",
      cookie: alice,
    });
    expect(refused.status).toBe(424);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("provider_rejected_credentials");
    expect(body.error.message).toContain("You did not pass a valid authentication token");
    expect(body.error.message).not.toContain("PLAINTEXT");

    // Another workspace can neither check nor delete it, and a Replicate token is no model provider's key.
    expect(
      (await builder.request(`/api/credentials/${created.id}/test`, { method: "POST", cookie: bob })).status,
    ).toBe(404);
    const asOpenAi = await builder.request(`/api/providers/openai/models?credential_id=${created.id}`, {
      cookie: alice,
    });
    expect(asOpenAi.status).toBe(422);
    expect(((await asOpenAi.json()) as { error: { code: string } }).error.code).toBe("not_a_provider_key");
  });
});
