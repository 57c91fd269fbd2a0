import { Writable } from "node:stream";
import { createLogger } from "@app/http";
import { FAKE_REPLICATE_MODELS, type FakeReplicate, startFakeReplicate, TINY_PNG } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

interface GenerationJson {
  id: string;
  status: string;
  error: string | null;
  prediction_id: string | null;
  credential_id: string | null;
  outputs: { url: string; content_type: string }[];
}

const IMAGE = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;
/** Workspaces' own Replicate tokens: two more accounts of the fake. */
const WORKSPACE_TOKEN = "r8_PollingWorkspaceToken-0000000000001111";
const OTHER_ACCOUNT_TOKEN = "r8_AnotherAccountToken-00000000000002222";
const REFUSED_TOKEN = "r8_RefusedByReplicate-000000000000003333";

let fake: FakeReplicate;
let builder: TestBuilder;
let cookie: string;

beforeAll(async () => {
  fake = await startFakeReplicate({
    apiToken: "r8_test",
    otherAccounts: [WORKSPACE_TOKEN, OTHER_ACCOUNT_TOKEN],
    outcome: () => "manual",
  });
  builder = await startTestBuilder({
    // No PUBLIC_URL: Replicate cannot reach us, so the worker polls.
    env: {
      PUBLIC_URL: "",
      REPLICATE_API_TOKEN: "r8_test",
      REPLICATE_BASE_URL: fake.baseUrl,
      ALLOW_PRIVATE_URLS: "1",
    },
    deps: { generation: { pollBaseMs: 20, maxPollMs: 100, maxIdleMs: 20 } },
  });
  ({ cookie } = await builder.signUp());
});

afterAll(async () => {
  await builder?.stop();
  await fake?.close();
});

async function start(prompt: string, on = builder, as = cookie): Promise<GenerationJson> {
  const response = await on.request("/api/replicate/generate/image", {
    method: "POST",
    json: { model: IMAGE, input: { prompt } },
    cookie: as,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as GenerationJson;
}

/** Reads the generation until it has finished; the worker's pace is not under test, only the outcome. */
async function finished(id: string, on = builder, as = cookie): Promise<GenerationJson> {
  for (let attempt = 0; attempt < 400; attempt++) {
    let body: GenerationJson | undefined;
    try {
      body = (await (await on.request(`/api/generations/${id}`, { cookie: as })).json()) as GenerationJson;
    } catch {
      // A keep-alive connection to the process before the restart fails once; the next request opens a new one.
    }
    if (body && !["starting", "processing"].includes(body.status)) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`generation ${id} did not finish`);
}

describe("generation by polling (no PUBLIC_URL)", () => {
  it("sends no webhook and finishes by polling after the service restarted mid-generation", async () => {
    const generation = await start("across a restart");
    expect(generation.status).toBe("starting");
    const predictionId = generation.prediction_id ?? "";
    expect(fake.predictions.get(predictionId)?.webhook).toBeNull();

    // Replicate finishes while no builder process is running; the new process must pick it up from the database.
    await builder.restart(() => fake.complete(predictionId));
    const done = await finished(generation.id);
    expect(done.status).toBe("succeeded");
    expect(fake.requests.some((request) => request.route === `GET /v1/predictions/${predictionId}`)).toBe(
      true,
    );
    const file = await builder.request(new URL(done.outputs[0]?.url ?? "").pathname, { cookie });
    expect(Buffer.from(await file.arrayBuffer()).equals(TINY_PNG)).toBe(true);
  });

  it("records Replicate's error text when a polled prediction fails", async () => {
    const generation = await start("doomed");
    await fake.complete(generation.prediction_id ?? "", {
      error: "NSFW content detected. Try another prompt.",
    });
    const done = await finished(generation.id);
    expect(done.status).toBe("failed");
    expect(done.error).toBe("NSFW content detected. Try another prompt.");
  });
});

describe("without a server-wide Replicate token", () => {
  let bare: TestBuilder;
  let bareCookie: string;
  const logs: string[] = [];
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString("utf8"));
        done();
      },
    });
    bare = await startTestBuilder({
      // Every line the builder logs, at the most verbose level, to check that no token is ever in one.
      logger: createLogger({ service: "builder-test", level: "trace", destination }),
      env: { PUBLIC_URL: "", REPLICATE_BASE_URL: fake.baseUrl, ALLOW_PRIVATE_URLS: "1" },
      deps: { generation: { pollBaseMs: 20, maxPollMs: 100, maxIdleMs: 20 } },
    });
    ({ cookie: bareCookie } = await bare.signUp());
  });
  afterAll(() => bare?.stop());

  async function addReplicateCredential(as: string, token: string): Promise<string> {
    const response = await bare.request("/api/credentials", {
      method: "POST",
      cookie: as,
      json: { provider: "replicate", api_key: token },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  it("answers 424 to a generation, saying how to configure Replicate, and offers the curated models", async () => {
    const response = await bare.request("/api/replicate/generate/video", {
      method: "POST",
      json: { model: "minimax/video-01", input: { prompt: "x" } },
      cookie: bareCookie,
    });
    expect(response.status).toBe(424);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("replicate_not_configured");
    expect(error.message).toContain("Replicate credential");
    expect(error.message).toContain("REPLICATE_API_TOKEN");
    const inputs = await bare.request(`/api/replicate/models/${IMAGE}`, { cookie: bareCookie });
    expect(inputs.status).toBe(424);
    const models = await bare.request("/api/replicate/models?type=video", { cookie: bareCookie });
    const list = (await models.json()) as { source: string; data: { id: string; kind: string }[] };
    expect(list.source).toBe("curated");
    expect(list.data.length).toBeGreaterThan(0);
    expect(list.data.every((model) => model.kind === "video")).toBe(true);
    const search = await bare.request("/api/replicate/models?type=image&query=flux", { cookie: bareCookie });
    const found = (await search.json()) as { data: { id: string }[] };
    expect(found.data.map((model) => model.id)).toContain("black-forest-labs/flux-schnell");
  });

  it("generates with a workspace's Replicate credential, and polls with its token after a restart", async () => {
    const credentialId = await addReplicateCredential(bareCookie, WORKSPACE_TOKEN);
    // Another user's workspace cannot use it: it still has no token at all.
    const { cookie: otherCookie } = await bare.signUp();
    const refused = await bare.request("/api/replicate/generate/image", {
      method: "POST",
      json: { model: IMAGE, input: { prompt: "not mine" } },
      cookie: otherCookie,
    });
    expect(refused.status).toBe(424);

    const generation = await start("own token across a restart", bare, bareCookie);
    expect(generation).toMatchObject({ status: "starting", credential_id: credentialId });
    const predictionId = generation.prediction_id ?? "";
    expect(fake.predictions.get(predictionId)?.account).toBe(WORKSPACE_TOKEN);

    await bare.restart(() => fake.complete(predictionId));
    const done = await finished(generation.id, bare, bareCookie);
    expect(done.status).toBe("succeeded");
    const polls = fake.requests.filter((request) => request.route === `GET /v1/predictions/${predictionId}`);
    expect(polls.length).toBeGreaterThan(0);
    expect(new Set(polls.map((request) => request.token))).toEqual(new Set([WORKSPACE_TOKEN]));
    const file = await bare.request(new URL(done.outputs[0]?.url ?? "").pathname, { cookie: bareCookie });
    expect(Buffer.from(await file.arrayBuffer()).equals(TINY_PNG)).toBe(true);
  });

  it("fails a generation whose credential was deleted when no token is left, rather than polling forever", async () => {
    const { cookie: owner } = await bare.signUp();
    const credentialId = await addReplicateCredential(owner, WORKSPACE_TOKEN);
    const generation = await start("orphaned", bare, owner);
    const deleted = await bare.request(`/api/credentials/${credentialId}`, {
      method: "DELETE",
      cookie: owner,
    });
    expect(deleted.status).toBe(204);
    const done = await finished(generation.id, bare, owner);
    expect(done.status).toBe("failed");
    expect(done.error).toContain("Replicate credential that started this generation was deleted");
  });

  it("fails a generation whose credential was replaced by another account's, which Replicate answers 404", async () => {
    const { cookie: owner } = await bare.signUp();
    const first = await addReplicateCredential(owner, WORKSPACE_TOKEN);
    const generation = await start("account switched", bare, owner);
    await addReplicateCredential(owner, OTHER_ACCOUNT_TOKEN);
    expect(
      (await bare.request(`/api/credentials/${first}`, { method: "DELETE", cookie: owner })).status,
    ).toBe(204);
    const done = await finished(generation.id, bare, owner);
    expect(done.status).toBe("failed");
    expect(done.error).toContain(`Replicate does not know the prediction ${generation.prediction_id}`);
    const cancel = await bare.request(`/api/generations/${generation.id}/cancel`, {
      method: "POST",
      cookie: owner,
    });
    expect(cancel.status).toBe(409);
  });

  it("never logs a Replicate token, even when Replicate refuses one", async () => {
    const { cookie: owner } = await bare.signUp();
    await addReplicateCredential(owner, REFUSED_TOKEN);
    const models = await bare.request("/api/replicate/models?type=image", { cookie: owner });
    expect(((await models.json()) as { source: string }).source).toBe("curated");
    const text = logs.join("");
    // The refusal was logged (with Replicate's error), and so was every request: the check below has lines to read.
    expect(text).toContain("Replicate models unavailable");
    expect(text).toContain("/api/credentials");
    for (const token of [WORKSPACE_TOKEN, OTHER_ACCOUNT_TOKEN, REFUSED_TOKEN])
      expect(text).not.toContain(token);
  });
});
