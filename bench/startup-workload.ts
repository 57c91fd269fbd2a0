// The standard workload of `npm run bench -- startup` (not a bench of its own): sign-ups, 100 chat
// turns against a fake OpenAI-compatible model, 50 workflow runs, 1,000 chunks ingested and searched,
// all over HTTP against a running builder.
import type { startFakeOpenAI } from "@app/testing";

/**
 * fetch, once more when a kept-alive connection turned out to be closed by the server (its keep-alive
 * timeout passed during the bench's idle wait): such a request never reached the server.
 */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = ((error as Error).cause as { code?: string } | undefined)?.code;
    if (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET") throw error;
    return fetch(url, init);
  }
}

const SIGN_UPS = 10;
const CHAT_TURNS = 100;
const WORKFLOW_RUNS = 50;
const CHUNKS = 1000;
const SEARCHES = 100;

export async function standardWorkload(options: {
  builder: string;
  fakeModel: typeof startFakeOpenAI;
}): Promise<void> {
  const base = options.builder;
  const model = await options.fakeModel({ apiKey: "sk-bench-fake-key-0001" });
  model.script = (turn) => ({ text: `You said ${turn.messages.length} things. Here is a short answer.` });
  try {
    const cookies: string[] = [];
    for (let i = 0; i < SIGN_UPS; i++) cookies.push(await signUp(base, `bench-${i}@example.com`));
    const cookie = cookies[0] ?? "";
    const call = async (path: string, body: unknown, expected = 200) => {
      const response = await send(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base, cookie },
        body: JSON.stringify(body),
      });
      if (response.status !== expected)
        throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, unknown>;
    };

    await call(
      "/api/credentials",
      { provider: "openai-compatible", api_key: "sk-bench-fake-key-0001", base_url: model.baseUrl },
      201,
    );
    const agent = await call(
      "/api/agents",
      { name: "Bench", instructions: "Answer briefly.", provider: "openai-compatible", model: "llama3.2" },
      201,
    );
    let conversationId: string | undefined;
    for (let i = 0; i < CHAT_TURNS; i++) {
      // Ten conversations of ten turns: memory is read back on every turn.
      if (i % 10 === 0) conversationId = undefined;
      const answer = await call(`/api/agents/${agent.id}/chat`, {
        message: `Question ${i}: what is ${i} + ${i}?`,
        ...(conversationId ? { conversation_id: conversationId } : {}),
      });
      conversationId = answer.conversation_id as string;
    }

    const node = (id: string, type: string, data: Record<string, unknown>) => ({
      id,
      type,
      position: { x: 0, y: 0 },
      data,
    });
    const workflow = await call(
      "/api/workflows",
      {
        name: "bench",
        graph: {
          nodes: [
            node("start", "start", { inputs: [{ name: "n", type: "number", required: true }] }),
            node("check", "condition", {
              cases: [
                {
                  id: "big",
                  logic: "and",
                  conditions: [{ left: "{{start.n}}", operator: "gt", right: "25" }],
                },
              ],
            }),
            node("big", "end", { outputs: [{ name: "size", value: "big {{start.n}}" }] }),
            node("small", "end", { outputs: [{ name: "size", value: "small {{start.n}}" }] }),
          ],
          edges: [
            { id: "a", source: "start", target: "check" },
            { id: "b", source: "check", target: "big", source_handle: "big" },
            { id: "c", source: "check", target: "small", source_handle: "else" },
          ],
        },
      },
      201,
    );
    for (let i = 0; i < WORKFLOW_RUNS; i++)
      await call(`/api/workflows/${workflow.id}/runs`, { inputs: { n: i } });

    const knowledgeBase = await call("/api/knowledge-bases", { name: "bench" }, 201);
    // About 200 characters (50 tokens) per chunk.
    const paragraphs = Array.from(
      { length: CHUNKS },
      (_, i) =>
        `Passage ${i} describes topic ${i % 37} in region ${i % 11}: the ${["river", "harbour", "market", "school", "clinic"][i % 5]} opens at ${6 + (i % 6)} and serves about ${100 + i} people every single day of the week.`,
    );
    const form = new FormData();
    form.set("knowledge_base_id", String(knowledgeBase.id));
    form.set("chunk_size", "50");
    form.set("chunk_overlap", "0");
    form.set("file", new Blob([paragraphs.join("\n\n")]), "passages.txt");
    const upload = await send(`${base}/api/rag/upload`, {
      method: "POST",
      headers: { origin: base, cookie },
      body: form,
    });
    if (upload.status !== 202) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
    const documentId = ((await upload.json()) as { id: string }).id;
    for (;;) {
      const document = (await (
        await send(`${base}/api/rag/documents/${documentId}`, { headers: { origin: base, cookie } })
      ).json()) as { status: string; chunk_count: number; error: unknown };
      if (document.status === "failed")
        throw new Error(`ingestion failed: ${JSON.stringify(document.error)}`);
      if (document.status === "ready") {
        if (document.chunk_count < CHUNKS * 0.9) throw new Error(`only ${document.chunk_count} chunks`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (let i = 0; i < SEARCHES; i++) {
      await call(`/api/knowledge-bases/${knowledgeBase.id}/search`, {
        query: `when does the market in region ${i % 11} open`,
        top_k: 5,
      });
    }
  } finally {
    await model.close();
  }
}

async function signUp(base: string, email: string): Promise<string> {
  const response = await send(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email, password: "correct horse battery", name: "Bench" }),
  });
  const cookie = response.headers
    .getSetCookie()
    .find((value) => value.startsWith("better-auth.session_token="));
  if (!cookie) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  return cookie.split(";")[0] as string;
}
