import { asArray, asRecord, sendJson, startFakeHttp } from "./fake-model.ts";

/** One call to `POST /v2/rerank`, in arrival order. */
export interface FakeRerankCall {
  model: string;
  query: string;
  documents: string[];
  topN: number | undefined;
  apiKey: string | undefined;
  index: number;
}

export interface FakeCohereRerankOptions {
  apiKey?: string;
  /** Models it knows; another answers 404 as Cohere does. Default: rerank-v3.5 and rerank-english-v3.0. */
  models?: string[];
  /** Relevance of one document to the query, 0–1; by default the share of the query's words it holds. */
  score?: (query: string, document: string) => number;
  /** Decides each call's answer: an error instead of the ranking. */
  script?: (call: FakeRerankCall) => { error: { status: number; message: string } } | undefined;
}

export interface FakeCohereRerank {
  url: string;
  /** The base URL the AI SDK's Cohere provider takes (`…/v2`). */
  baseUrl: string;
  calls: FakeRerankCall[];
  close(): Promise<void>;
}

/** Cohere refuses more documents than this in one call. */
const MAX_DOCUMENTS = 1000;

/**
 * A fake of Cohere's rerank API v2 (`POST /v2/rerank`): bearer key, `{ model, query, documents,
 * top_n? }`, answering `{ id, results: [{ index, relevance_score }], meta }` best first, and Cohere's
 * `{ message }` errors (401 bad key, 404 unknown model, 400 invalid request, scripted 429/5xx).
 *
 * @example
 * const fake = await startFakeCohereRerank({ apiKey: "k" });
 * const cohere = createCohere({ apiKey: "k", baseURL: fake.baseUrl });
 * await rerank({ model: cohere.rerankingModel("rerank-v3.5"), query: "q", documents: ["a", "b"] });
 */
export async function startFakeCohereRerank(
  options: FakeCohereRerankOptions = {},
): Promise<FakeCohereRerank> {
  const calls: FakeRerankCall[] = [];
  const models = options.models ?? ["rerank-v3.5", "rerank-english-v3.0"];
  const score = options.score ?? wordOverlap;
  const http = await startFakeHttp(async (request, response) => {
    const apiKey = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (options.apiKey !== undefined && apiKey !== options.apiKey)
      return sendJson(response, 401, { message: "invalid api token" });
    if (request.method !== "POST" || request.path !== "/v2/rerank")
      return sendJson(response, 404, { message: `Unknown route ${request.method} ${request.path}` });
    const body = asRecord(request.body);
    const model = String(body.model ?? "");
    if (!models.includes(model))
      return sendJson(response, 404, {
        message: `model '${model}' not found, make sure the correct model ID was used and that you have access to the model.`,
      });
    if (typeof body.query !== "string" || body.query.length === 0)
      return sendJson(response, 400, { message: "invalid request: query must not be empty." });
    const documents = asArray(body.documents).map((value) => String(value ?? ""));
    if (documents.length === 0 || documents.length > MAX_DOCUMENTS)
      return sendJson(response, 400, {
        message: `invalid request: list of documents must have at least one item and at most ${MAX_DOCUMENTS}.`,
      });
    const topN = typeof body.top_n === "number" ? body.top_n : undefined;
    const call: FakeRerankCall = { model, query: body.query, documents, topN, apiKey, index: calls.length };
    calls.push(call);
    const scripted = options.script?.(call);
    if (scripted) return sendJson(response, scripted.error.status, { message: scripted.error.message });
    const results = documents
      .map((document, index) => ({ index, relevance_score: score(call.query, document) }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, topN ?? documents.length);
    return sendJson(response, 200, {
      id: `rerank-${call.index}`,
      results,
      meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } },
    });
  });
  return { url: http.url, baseUrl: `${http.url}/v2`, calls, close: http.close };
}

function wordOverlap(query: string, document: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const wanted = words(query);
  if (wanted.size === 0) return 0;
  const present = words(document);
  let shared = 0;
  for (const word of wanted) if (present.has(word)) shared += 1;
  return shared / wanted.size;
}
