// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, createApiClient, describeError, type ServerEvent } from "./api.ts";
import { appStore } from "./store.ts";

const BASE = "https://builder.example";
const ROOT = `${BASE}/api/public/apps/help`;

type Handler = (url: string, init: RequestInit) => Response;

/** Stubs fetch with `handler` and records what was asked. */
function serve(handler: Handler) {
  const calls: { url: string; method: string; authorization: string | null; credentials?: string }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    calls.push({
      url,
      method: init.method ?? "GET",
      authorization: headers.get("authorization"),
      ...(init.credentials ? { credentials: init.credentials } : {}),
    });
    return handler(url, init);
  });
  return calls;
}

/** A streamed answer, split into chunks at awkward places as a network would. */
function eventStream(text: string, chunkSize = 7): Response {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe("the public API client", () => {
  it("creates one anonymous session for concurrent calls, keeps its token per app, sends no cookies", async () => {
    const calls = serve((url) => {
      if (url.endsWith("/session"))
        return json(201, { token: "tok_1", end_user_id: "eu_1", expires_at: "x" });
      return json(200, { data: [], has_more: false, next_cursor: null });
    });
    const api = createApiClient({ base: BASE, slug: "help", store: appStore("help") });
    await Promise.all([api.conversations(), api.conversations()]);
    expect(calls.filter((call) => call.url.endsWith("/session"))).toHaveLength(1);
    expect(
      calls.filter((call) => call.url.includes("/conversations")).map((call) => call.authorization),
    ).toEqual(["Bearer tok_1", "Bearer tok_1"]);
    expect(calls.every((call) => call.credentials === "omit")).toBe(true);
    expect(localStorage.getItem("app-chat:help:token")).toBe("tok_1");
    expect(localStorage.getItem("app-chat:other:token")).toBeNull();
  });

  it("on a 401 drops the stored anonymous token and its conversation, opens a new session and retries once", async () => {
    localStorage.setItem("app-chat:help:token", "expired");
    localStorage.setItem("app-chat:help:conversation", "conv_old");
    let sessions = 0;
    const calls = serve((url, init) => {
      if (url.endsWith("/session"))
        return json(201, { token: `fresh_${++sessions}`, end_user_id: "eu", expires_at: "x" });
      const auth = new Headers(init.headers).get("authorization");
      return auth === "Bearer expired"
        ? json(401, { error: { type: "authentication_error", code: "invalid_token", message: "Expired" } })
        : json(200, { data: [], has_more: false, next_cursor: null });
    });
    const api = createApiClient({ base: BASE, slug: "help", store: appStore("help") });
    await api.conversations();
    expect(calls.map((call) => `${call.method} ${call.url.replace(ROOT, "")} ${call.authorization}`)).toEqual(
      [
        "GET /conversations?limit=30 Bearer expired",
        "POST /session null",
        "GET /conversations?limit=30 Bearer fresh_1",
      ],
    );
    expect(localStorage.getItem("app-chat:help:token")).toBe("fresh_1");
    expect(localStorage.getItem("app-chat:help:conversation")).toBeNull();
  });

  it("uses the host's signed user token as it is: never a session, and a 401 is not retried", async () => {
    const calls = serve(() =>
      json(401, { error: { type: "authentication_error", code: "invalid_token", message: "" } }),
    );
    const api = createApiClient({ base: BASE, slug: "help", store: appStore("help"), userToken: "jwt.abc" });
    const error = await api.conversations().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(calls.map((call) => call.authorization)).toEqual(["Bearer jwt.abc"]);
    expect(describeError(error, api.isIdentified)).toBe(
      "Your sign-in to this site has expired. Reload the page to continue.",
    );
  });

  it("streams a chat turn's events in order, however the bytes are split", async () => {
    localStorage.setItem("app-chat:help:token", "tok");
    serve(() =>
      eventStream(
        'event: conversation\ndata: {"id":"conv_1","title":"Hi"}\n\n' +
          'event: text_delta\r\ndata: {"text":"Hel"}\r\n\r\n' +
          'event: text_delta\ndata: {"text":"lo ✓"}\n\n' +
          ": a comment\n\n" +
          'event: finish\ndata: {"conversation_id":"conv_1","message_id":"msg_1","citations":[]}\n\n',
        5,
      ),
    );
    const api = createApiClient({ base: BASE, slug: "help", store: appStore("help") });
    const events: ServerEvent[] = [];
    await api.chat({ message: "hi" }, (event) => events.push(event));
    expect(events.map((event) => event.event)).toEqual([
      "conversation",
      "text_delta",
      "text_delta",
      "finish",
    ]);
    expect(
      events
        .filter((event) => event.event === "text_delta")
        .map((event) => event.data.text)
        .join(""),
    ).toBe("Hello ✓");
  });

  it("turns an error event and a stream cut short into errors that say so", async () => {
    localStorage.setItem("app-chat:help:token", "tok");
    serve(() =>
      eventStream(
        'event: error\ndata: {"status":502,"error":{"code":"provider_error","message":"Model down"}}\n\n',
      ),
    );
    const api = createApiClient({ base: BASE, slug: "help", store: appStore("help") });
    await expect(api.chat({ message: "hi" }, () => undefined)).rejects.toMatchObject({
      status: 502,
      code: "provider_error",
    });
    serve(() => eventStream('event: text_delta\ndata: {"text":"Hel"}\n\n'));
    const cut = await api.chat({ message: "hi" }, () => undefined).catch((caught: unknown) => caught);
    expect(describeError(cut)).toBe("The connection was lost before the answer finished. Please try again.");
  });

  it("tells a person what each refusal means and what to do", async () => {
    localStorage.setItem("app-chat:help:token", "tok");
    const refusals: [number, string, Record<string, string>][] = [
      [429, "rate_limited", { "retry-after": "12" }],
      [402, "end_user_limit_reached", {}],
      [403, "origin_not_allowed", {}],
      [404, "app_not_found", {}],
    ];
    const said: string[] = [];
    for (const [status, code, headers] of refusals) {
      serve(() => json(status, { error: { type: "invalid_request_error", code, message: "m" } }, headers));
      const api = createApiClient({ base: BASE, slug: "help", store: appStore("help") });
      said.push(
        describeError(await api.chat({ message: "hi" }, () => undefined).catch((caught: unknown) => caught)),
      );
    }
    expect(said).toEqual([
      "Too many messages, try again in 12 s.",
      "You have reached the usage limit of this chat for today. Please try again tomorrow.",
      "This site is not allowed to use this chat.",
      "This chat does not exist (any more).",
    ]);
    vi.stubGlobal("fetch", () => Promise.reject(new TypeError("Failed to fetch")));
    const offline = createApiClient({ base: BASE, slug: "help", store: appStore("help") });
    expect(describeError(await offline.config().catch((caught: unknown) => caught))).toBe(
      "The chat service could not be reached. Check your connection and try again.",
    );
  });
});
