import { FAKE_REPLICATE_MODELS, type FakeReplicate, startFakeReplicate, TINY_PNG } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "./harness.ts";

interface GenerationJson {
  id: string;
  status: string;
  error: string | null;
  prediction_id: string | null;
  outputs: { url: string; content_type: string }[];
}

const IMAGE = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;

let fake: FakeReplicate;
let builder: TestBuilder;
let cookie: string;

beforeAll(async () => {
  fake = await startFakeReplicate({ apiToken: "r8_test", outcome: () => "manual" });
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

async function start(prompt: string): Promise<GenerationJson> {
  const response = await builder.request("/api/replicate/generate/image", {
    method: "POST",
    json: { model: IMAGE, input: { prompt } },
    cookie,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as GenerationJson;
}

/** Reads the generation until it has finished; the worker's pace is not under test, only the outcome. */
async function finished(id: string): Promise<GenerationJson> {
  for (let attempt = 0; attempt < 400; attempt++) {
    let body: GenerationJson | undefined;
    try {
      body = (await (await builder.request(`/api/generations/${id}`, { cookie })).json()) as GenerationJson;
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

describe("without Replicate configured", () => {
  let bare: TestBuilder;
  let bareCookie: string;
  beforeAll(async () => {
    bare = await startTestBuilder();
    ({ cookie: bareCookie } = await bare.signUp());
  });
  afterAll(() => bare?.stop());

  it("answers 424 to a generation and offers the curated models", async () => {
    const response = await bare.request("/api/replicate/generate/video", {
      method: "POST",
      json: { model: "minimax/video-01", input: { prompt: "x" } },
      cookie: bareCookie,
    });
    expect(response.status).toBe(424);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "replicate_not_configured",
    );
    const models = await bare.request("/api/replicate/models?type=video", { cookie: bareCookie });
    const list = (await models.json()) as { source: string; data: { id: string; kind: string }[] };
    expect(list.source).toBe("curated");
    expect(list.data.length).toBeGreaterThan(0);
    expect(list.data.every((model) => model.kind === "video")).toBe(true);
    const search = await bare.request("/api/replicate/models?type=image&query=flux", { cookie: bareCookie });
    const found = (await search.json()) as { data: { id: string }[] };
    expect(found.data.map((model) => model.id)).toContain("black-forest-labs/flux-schnell");
  });
});
