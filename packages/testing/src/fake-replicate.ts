import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deflateSync } from "node:zlib";

type Status = "starting" | "processing" | "succeeded" | "failed" | "canceled";

/** A prediction as the fake keeps it (and answers it, in Replicate's JSON shape). */
export interface FakePrediction {
  id: string;
  model: string;
  version: string;
  status: Status;
  input: Record<string, unknown>;
  output: unknown;
  error: string | null;
  webhook: string | null;
  webhookEventsFilter: string[];
  metrics: { predict_time?: number; total_time?: number };
  createdAt: string;
  completedAt: string | null;
  /** The account (named by its token) that created it: only that account sees it and gets its webhooks signed. */
  account: string;
}

/**
 * What the fake does with a new prediction: finish at once (`instant`, the default) with output
 * files, stay `starting` until the test calls `complete()` (`manual`), fail with Replicate's error
 * text, or succeed with the given output (a model whose output is text, or nothing).
 */
export type FakeReplicateOutcome = "instant" | "manual" | { error: string } | { output: unknown };

/** A webhook the fake sent, with everything a test needs to replay or tamper with it. */
export interface FakeWebhookDelivery {
  url: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  status: number;
}

export interface FakeReplicateOptions {
  /** The token the fake expects as `Authorization: Bearer …`; any is accepted when unset. */
  apiToken?: string;
  /**
   * Tokens of further accounts. As on Replicate, each account has its own webhook signing secret, signs
   * the webhooks of the predictions it created with it, and gets 404 for another account's predictions.
   */
  otherAccounts?: string[];
  /** Decides each new prediction's fate; default `instant`. */
  outcome?: (prediction: FakePrediction) => FakeReplicateOutcome;
  /** Bytes of each video output; large values are streamed, never held in memory. */
  videoBytes?: number;
}

export interface FakeReplicate {
  url: string;
  /** What `REPLICATE_BASE_URL` should be (with `/v1`). */
  baseUrl: string;
  /** `whsec_…` of the `apiToken` account, served at GET /v1/webhooks/default/secret and used to sign webhooks. */
  webhookSecret: string;
  /** The signing secret of the account a token belongs to (one of `otherAccounts`, or `apiToken`). */
  webhookSecretOf(token: string): string;
  predictions: Map<string, FakePrediction>;
  webhooks: FakeWebhookDelivery[];
  /**
   * Every request as `METHOD /path`, its `Prefer` header and the bearer token it carried, for asserting
   * which routes the client used and with which account.
   */
  requests: { route: string; prefer: string | undefined; token: string | undefined }[];
  outcome: (prediction: FakePrediction) => FakeReplicateOutcome;
  /** Finishes a `manual` prediction (success, or failure with `error`) and sends its webhook. */
  complete(id: string, result?: { error?: string }): Promise<void>;
  /** Makes every output URL answer 404, as Replicate does an hour after a prediction. */
  deleteOutputs(): void;
  close(): Promise<void>;
}

/** The models the fake knows; each has a version with an OpenAPI input schema. */
export const FAKE_REPLICATE_MODELS = {
  image: { owner: "fake-labs", name: "fake-image", version: "a".repeat(64), output: "png" },
  video: { owner: "fake-labs", name: "fake-video", version: "b".repeat(64), output: "mp4" },
} as const;

const INPUT_SCHEMA = {
  openapi: "3.0.2",
  components: {
    schemas: {
      Input: {
        type: "object",
        title: "Input",
        required: ["prompt"],
        properties: {
          prompt: { type: "string", title: "Prompt", "x-order": 0 },
          num_outputs: { type: "integer", minimum: 1, maximum: 4, default: 1, "x-order": 1 },
          aspect_ratio: { allOf: [{ $ref: "#/components/schemas/aspect_ratio" }], default: "1:1" },
          guidance: { type: "number", minimum: 0, maximum: 10 },
          seed: { type: "integer" },
        },
      },
      aspect_ratio: { enum: ["1:1", "16:9", "9:16"], type: "string", title: "aspect_ratio" },
      Output: { type: "array", items: { type: "string", format: "uri" } },
    },
  },
};

/**
 * A fake of Replicate's HTTP API for the endpoints the `replicate` client uses: predictions
 * (official-model route and version route, `Prefer: wait`), get and cancel, models and versions
 * with an input schema, collections, search (`QUERY /v1/models`), the webhook signing secret, the
 * current account; plus output files (a real PNG, an MP4) and Standard Webhooks-signed completion
 * webhooks. With `otherAccounts`, several accounts each keep their own predictions and signing secret.
 *
 * @example
 * const fake = await startFakeReplicate({ apiToken: "r8_test" });
 * const replicate = new Replicate({ auth: "r8_test", baseUrl: fake.baseUrl, useFileOutput: false });
 * await replicate.predictions.create({ model: "fake-labs/fake-image", input: { prompt: "x" }, wait: true });
 */
export async function startFakeReplicate(options: FakeReplicateOptions = {}): Promise<FakeReplicate> {
  const predictions = new Map<string, FakePrediction>();
  const webhooks: FakeWebhookDelivery[] = [];
  const requests: FakeReplicate["requests"] = [];
  const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;
  const webhookSecret = newSecret();
  // Without `apiToken` every token is accepted and they all share the one default account.
  const defaultAccount = options.apiToken ?? "";
  const secrets = new Map<string, string>([[defaultAccount, webhookSecret]]);
  for (const token of options.otherAccounts ?? []) secrets.set(token, newSecret());
  const accountOf = (token: string): string | undefined => {
    if (secrets.has(token)) return token;
    return options.apiToken === undefined ? defaultAccount : undefined;
  };
  const secretOf = (account: string): string => {
    const secret = secrets.get(account);
    if (!secret) throw new Error("the fake has no such account");
    return secret;
  };
  let areOutputsDeleted = false;
  let baseUrl = "";
  let counter = 0;
  const videoBytes = options.videoBytes ?? 0;

  const toJson = (p: FakePrediction) => ({
    id: p.id,
    model: p.model,
    version: p.version,
    status: p.status,
    input: p.input,
    output: p.output,
    error: p.error,
    logs: "",
    source: "api",
    data_removed: false,
    metrics: p.metrics,
    created_at: p.createdAt,
    completed_at: p.completedAt,
    urls: {
      get: `${baseUrl}/v1/predictions/${p.id}`,
      cancel: `${baseUrl}/v1/predictions/${p.id}/cancel`,
    },
  });

  const sendWebhook = async (p: FakePrediction) => {
    if (!p.webhook) return;
    const body = JSON.stringify(toJson(p));
    const id = `msg_${randomBytes(12).toString("hex")}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = signWebhook(secretOf(p.account), id, timestamp, body);
    let status = 0;
    try {
      const response = await fetch(p.webhook, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": timestamp,
          "webhook-signature": signature,
        },
        body,
      });
      status = response.status;
      await response.arrayBuffer();
    } catch {
      status = 0;
    }
    webhooks.push({ url: p.webhook, id, timestamp, signature, body, status });
  };

  const finish = (p: FakePrediction, error?: string, output?: { value: unknown }) => {
    const kind = p.model.endsWith("video") ? "mp4" : "png";
    const count = Math.max(1, Math.min(4, Number(p.input.num_outputs ?? 1) || 1));
    p.status = error ? "failed" : "succeeded";
    p.error = error ?? null;
    p.output = error
      ? null
      : output
        ? output.value
        : Array.from({ length: count }, (_, index) => `${baseUrl}/files/${p.id}/out-${index}.${kind}`);
    p.metrics = { predict_time: 1.25, total_time: 1.5 };
    p.completedAt = new Date().toISOString();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, { detail: String(error) });
        else res.destroy();
      });
    });
  });

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    const path = url.pathname;
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    requests.push({ route: `${method} ${path}`, prefer: [req.headers.prefer ?? []].flat()[0], token });

    const file = /^\/files\/([^/]+)\/out-(\d+)\.(png|mp4)$/.exec(path);
    if (file) return serveFile(res, file[3] === "mp4" ? "mp4" : "png", areOutputsDeleted, videoBytes);

    const account = token === undefined ? undefined : accountOf(token);
    if (account === undefined) {
      return send(res, 401, {
        title: "Unauthenticated",
        detail: "You did not pass a valid authentication token",
        status: 401,
      });
    }
    const body = parseJson(raw);

    if (method === "GET" && path === "/v1/webhooks/default/secret")
      return send(res, 200, { key: secretOf(account) });
    if (method === "GET" && path === "/v1/account") {
      const username = `fake-account-${[...secrets.keys()].indexOf(account) + 1}`;
      return send(res, 200, { type: "user", username, name: username, github_url: null });
    }

    const modelPrediction = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (method === "POST" && (modelPrediction || path === "/v1/predictions")) {
      let model: (typeof FAKE_REPLICATE_MODELS)[keyof typeof FAKE_REPLICATE_MODELS] | undefined;
      if (modelPrediction) model = findModel(modelPrediction[1] ?? "", modelPrediction[2] ?? "");
      else model = Object.values(FAKE_REPLICATE_MODELS).find((m) => m.version === body.version);
      if (!model)
        return send(res, 404, {
          title: "Not found",
          detail: "The requested resource could not be found.",
          status: 404,
        });
      const input = asObject(body.input);
      const issue = checkInput(input);
      if (issue)
        return send(res, 422, {
          title: "Input validation failed",
          detail: issue,
          status: 422,
          invalid_fields: [{ type: "invalid", field: "input", description: issue }],
        });
      counter += 1;
      const prediction: FakePrediction = {
        id: `fakepred${counter}${randomBytes(6).toString("hex")}`,
        model: `${model.owner}/${model.name}`,
        version: model.version,
        status: "starting",
        input,
        output: null,
        error: null,
        webhook: typeof body.webhook === "string" ? body.webhook : null,
        webhookEventsFilter: Array.isArray(body.webhook_events_filter)
          ? body.webhook_events_filter.map(String)
          : [],
        metrics: {},
        createdAt: new Date().toISOString(),
        completedAt: null,
        account,
      };
      predictions.set(prediction.id, prediction);
      const outcome = fake.outcome(prediction);
      const isWaiting = /^wait(=\d+)?$/.test(String(req.headers.prefer ?? ""));
      if (outcome === "manual") {
        if (isWaiting) prediction.status = "processing";
        return send(res, 201, toJson(prediction));
      }
      if (typeof outcome === "object" && "error" in outcome) finish(prediction, outcome.error);
      else finish(prediction, undefined, typeof outcome === "object" ? { value: outcome.output } : undefined);
      if (isWaiting) {
        send(res, 201, toJson(prediction));
        await sendWebhook(prediction);
        return;
      }
      // Without `Prefer: wait` Replicate answers `starting` and finishes in the background.
      send(res, 201, { ...toJson(prediction), status: "starting", output: null, error: null });
      await sendWebhook(prediction);
      return;
    }

    const prediction = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    if (prediction) {
      const found = predictions.get(prediction[1] ?? "");
      // Another account's prediction is not found, exactly like one that never existed.
      if (!found || found.account !== account)
        return send(res, 404, {
          title: "Not found",
          detail: "The requested resource could not be found.",
          status: 404,
        });
      if (method === "POST" && prediction[2]) {
        if (found.status === "starting" || found.status === "processing") {
          found.status = "canceled";
          found.completedAt = new Date().toISOString();
          await sendWebhook(found);
        }
        return send(res, 200, toJson(found));
      }
      if (method === "GET" && !prediction[2]) return send(res, 200, toJson(found));
    }

    const version = /^\/v1\/models\/([^/]+)\/([^/]+)\/versions\/([^/]+)$/.exec(path);
    if (method === "GET" && version) {
      const model = findModel(version[1] ?? "", version[2] ?? "");
      if (!model || model.version !== version[3])
        return send(res, 404, { detail: "Not found.", status: 404 });
      return send(res, 200, versionJson(model));
    }
    const modelPath = /^\/v1\/models\/([^/]+)\/([^/]+)$/.exec(path);
    if (method === "GET" && modelPath) {
      const model = findModel(modelPath[1] ?? "", modelPath[2] ?? "");
      if (!model) return send(res, 404, { detail: "Not found.", status: 404 });
      return send(res, 200, modelJson(model));
    }
    const collection = /^\/v1\/collections\/([^/]+)$/.exec(path);
    if (method === "GET" && collection) {
      const slug = collection[1] ?? "";
      const model =
        slug === "text-to-video"
          ? FAKE_REPLICATE_MODELS.video
          : slug === "text-to-image"
            ? FAKE_REPLICATE_MODELS.image
            : undefined;
      if (!model) return send(res, 404, { detail: "Not found.", status: 404 });
      return send(res, 200, { name: slug, slug, description: `Fake ${slug}`, models: [modelJson(model)] });
    }
    if (method === "QUERY" && path === "/v1/models") {
      // The client JSON-encodes the query even though it sends it as text/plain; accept both.
      const parsed: unknown = (() => {
        try {
          return JSON.parse(raw);
        } catch {
          return raw;
        }
      })();
      const query = (typeof parsed === "string" ? parsed : raw).toLowerCase();
      const results = Object.values(FAKE_REPLICATE_MODELS)
        .filter((m) => `${m.owner}/${m.name}`.includes(query))
        .map(modelJson);
      return send(res, 200, { next: null, previous: null, results });
    }
    return send(res, 404, { detail: `Unknown route ${method} ${path}`, status: 404 });
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  const modelJson = (model: (typeof FAKE_REPLICATE_MODELS)[keyof typeof FAKE_REPLICATE_MODELS]) => ({
    url: `https://replicate.com/${model.owner}/${model.name}`,
    owner: model.owner,
    name: model.name,
    description: `A fake ${model.output === "mp4" ? "video" : "image"} model`,
    visibility: "public",
    is_official: true,
    run_count: 42,
    cover_image_url: null,
    latest_version: versionJson(model),
  });

  const fake: FakeReplicate = {
    url: baseUrl,
    baseUrl: `${baseUrl}/v1`,
    webhookSecret,
    webhookSecretOf(token) {
      const owner = accountOf(token);
      if (owner === undefined) throw new Error("the fake has no account with this token");
      return secretOf(owner);
    },
    predictions,
    webhooks,
    requests,
    outcome: options.outcome ?? (() => "instant"),
    async complete(id, result = {}) {
      const found = predictions.get(id);
      if (!found) throw new Error(`no fake prediction ${id}`);
      finish(found, result.error);
      await sendWebhook(found);
    },
    deleteOutputs() {
      areOutputsDeleted = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}

/**
 * The Standard Webhooks signature Replicate sends: `v1,` + base64 HMAC-SHA256 of
 * `${id}.${timestamp}.${body}` keyed with the base64 part of the `whsec_` secret.
 *
 * @example signWebhook("whsec_…", "msg_1", "1700000000", "{}") // "v1,K5oZ…"
 */
export function signWebhook(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice(secret.lastIndexOf("_") + 1), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

function findModel(owner: string, name: string) {
  return Object.values(FAKE_REPLICATE_MODELS).find((m) => m.owner === owner && m.name === name);
}

function versionJson(model: (typeof FAKE_REPLICATE_MODELS)[keyof typeof FAKE_REPLICATE_MODELS]) {
  return {
    id: model.version,
    created_at: "2026-01-01T00:00:00Z",
    cog_version: "0.9.0",
    openapi_schema: INPUT_SCHEMA,
  };
}

/** Replicate validates input itself too; the fake checks the one rule the tests rely on. */
function checkInput(input: Record<string, unknown>): string | undefined {
  if (typeof input.prompt !== "string") return "prompt is required";
  return undefined;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function parseJson(raw: string): Record<string, unknown> {
  try {
    return asObject(JSON.parse(raw));
  } catch {
    return {};
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function serveFile(res: ServerResponse, kind: "png" | "mp4", isDeleted: boolean, videoBytes: number): void {
  if (isDeleted) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not found");
    return;
  }
  if (kind === "png") {
    res.writeHead(200, { "content-type": "image/png", "content-length": String(TINY_PNG.length) });
    res.end(TINY_PNG);
    return;
  }
  if (videoBytes <= TINY_MP4.length) {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(TINY_MP4.length) });
    res.end(TINY_MP4);
    return;
  }
  // A large "video": the MP4 header, then an mdat box of zeros written chunk by chunk with backpressure.
  res.writeHead(200, { "content-type": "video/mp4", "content-length": String(videoBytes) });
  const header = TINY_MP4.subarray(0, TINY_MP4.length - 8);
  const payload = videoBytes - header.length - 8;
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(payload + 8, 0);
  mdat.write("mdat", 4, "latin1");
  res.write(Buffer.concat([header, mdat]));
  const chunk = Buffer.alloc(64 * 1024);
  let left = payload;
  const pump = () => {
    while (left > 0) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) {
        res.once("drain", pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

function crc32(buffer: Buffer): number {
  let crc = ~0;
  for (const byte of buffer) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 2×2 RGB PNG (signature, IHDR, zlib-compressed IDAT with CRCs, IEND). */
export const TINY_PNG: Buffer = (() => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type RGB
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(rows)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
})();

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(body.length + 8);
  return Buffer.concat([size, Buffer.from(type, "latin1"), body]);
}

/**
 * A small ISO base media (MP4) file: `ftyp` (isom/mp42), `moov` with a movie header, and an
 * empty `mdat` last, so a large stream can grow the `mdat`. It parses as MP4; it has no track.
 */
export const TINY_MP4: Buffer = (() => {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(1000, 16); // duration: one second
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  for (const [offset, value] of [
    [36, 0x00010000],
    [52, 0x00010000],
    [68, 0x40000000],
  ] as const)
    mvhd.writeUInt32BE(value, offset);
  mvhd.writeUInt32BE(2, 96); // next track id
  return Buffer.concat([
    box("ftyp", Buffer.from("isom", "latin1"), Buffer.from([0, 0, 2, 0]), Buffer.from("isommp42", "latin1")),
    box("moov", box("mvhd", mvhd)),
    box("mdat"),
  ]);
})();
