// The public API of one app (`/api/public/apps/{slug}`), as the widget and the web app use it.
import { readEventStream, type ServerEvent } from "./sse.ts";
import type { AppStore } from "./store.ts";

export type { ServerEvent };

export interface AppInput {
  name: string;
  type: "string" | "number" | "boolean" | "object" | "array";
  required: boolean;
  description?: string;
}

export interface AppConfig {
  slug: string;
  kind: "agent" | "workflow";
  title: string;
  description: string;
  theme: { color: string; dark: boolean };
  starter_prompts: string[];
  inputs: AppInput[];
}

export interface Conversation {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface Citation {
  document_name: string;
  chunk_id: string;
  position: number;
  text: string;
}

export type Rating = "like" | "dislike";

export interface Message {
  id: string;
  conversation_id: string;
  role: "user" | "assistant";
  content: string;
  citations: Citation[];
  created_at: string;
  feedback: { rating: Rating; comment: string | null } | null;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A refusal or failure, with what the person should be told (see `describeError`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait, from a 429's Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export interface ApiClient {
  /** The app's public description, fetched once. */
  config(): Promise<AppConfig>;
  /** Makes sure there is a bearer token (creating an anonymous session if needed), without waiting for use. */
  warmUp(): Promise<void>;
  /** Whether the bearer token is the host's signed user token (not an anonymous session). */
  readonly isIdentified: boolean;
  chat(
    body: { message: string; conversation_id?: string },
    onEvent: (event: ServerEvent) => void,
  ): Promise<void>;
  conversations(cursor?: string): Promise<Page<Conversation>>;
  messages(conversationId: string, cursor?: string): Promise<Page<Message>>;
  feedback(messageId: string, rating: Rating | null, comment?: string): Promise<void>;
  run(inputs: Record<string, unknown>, onEvent: (event: ServerEvent) => void): Promise<void>;
}

/**
 * A client of app `slug` on the builder at `base`. With `userToken` (a JWT the host site signed) it
 * is the bearer; otherwise an anonymous session is created on first need and kept in `store`. A 401
 * on a stored anonymous token (expired, or the app's sessions were reset) drops it, creates a new
 * session and retries once.
 *
 * @example const api = createApiClient({ base: "https://builder.example", slug: "help", store: appStore("help") });
 */
export function createApiClient(options: {
  base: string;
  slug: string;
  store: AppStore;
  userToken?: string | null;
}): ApiClient {
  const { store, userToken } = options;
  const root = `${options.base}/api/public/apps/${encodeURIComponent(options.slug)}`;
  let token = userToken || store.get("token");
  let session: Promise<string> | null = null;
  let config: Promise<AppConfig> | null = null;

  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    let response: Response;
    try {
      // No cookies: the public API knows end users by their bearer token only, and a builder session
      // cookie of someone visiting the host site must never ride along.
      response = await fetch(root + path, { ...init, credentials: "omit" });
    } catch {
      // A network failure, or a refusal the browser hides (CORS): either way nothing came back.
      throw new ApiError(0, "network_error", "The chat service could not be reached.");
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  };

  const bearer = (): Promise<string> => {
    if (token) return Promise.resolve(token);
    session ??= send("/session", { method: "POST" })
      .then((response) => response.json() as Promise<{ token: string }>)
      .then((answer) => {
        token = answer.token;
        store.set("token", answer.token);
        return answer.token;
      })
      .finally(() => {
        session = null;
      });
    return session;
  };

  const authed = async (path: string, init: RequestInit = {}, isRetry = false): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${await bearer()}`);
    try {
      return await send(path, { ...init, headers });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401 || userToken || isRetry) throw error;
      token = null;
      store.remove("token");
      store.remove("conversation");
      return authed(path, init, true);
    }
  };

  const postJson = (path: string, body: unknown, accept = "application/json") =>
    authed(path, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify(body),
    });

  const stream = async (path: string, body: unknown, onEvent: (event: ServerEvent) => void) => {
    const response = await postJson(path, body, "text/event-stream");
    let isFinished = false;
    try {
      await readEventStream(response, (event) => {
        if (event.event === "error") {
          const error = (event.data.error ?? {}) as { code?: string; message?: string };
          throw new ApiError(Number(event.data.status) || 500, error.code ?? "error", error.message ?? "");
        }
        if (event.event === "finish" || event.event === "run_finished") isFinished = true;
        onEvent(event);
      });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(0, "stream_interrupted", "The connection was lost before the answer finished.");
    }
    if (!isFinished)
      throw new ApiError(0, "stream_interrupted", "The connection was lost before the answer finished.");
  };

  const page = (path: string, limit: number, cursor?: string) =>
    authed(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`).then(
      (response) => response.json(),
    );

  return {
    isIdentified: Boolean(userToken),
    config() {
      config ??= send("").then((response) => response.json() as Promise<AppConfig>);
      // A failed fetch is not remembered: the next call tries again.
      config.catch(() => {
        config = null;
      });
      return config;
    },
    async warmUp() {
      await bearer();
    },
    chat: (body, onEvent) => stream("/chat", body, onEvent),
    run: (inputs, onEvent) => stream("/runs", { inputs }, onEvent),
    conversations: (cursor) => page("/conversations", 30, cursor) as Promise<Page<Conversation>>,
    messages: (id, cursor) =>
      page(`/conversations/${encodeURIComponent(id)}/messages`, 50, cursor) as Promise<Page<Message>>,
    async feedback(messageId, rating, comment) {
      await postJson(`/messages/${encodeURIComponent(messageId)}/feedback`, {
        rating,
        ...(comment ? { comment } : {}),
      });
    },
  };
}

/** The API's error shape `{ error: { code, message } }` as an ApiError, whatever the body holds. */
async function errorOf(response: Response): Promise<ApiError> {
  let body: { error?: { code?: string; message?: string } } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status alone says what happened.
  }
  const retryAfter = Number(response.headers.get("retry-after"));
  return new ApiError(
    response.status,
    body.error?.code ?? `http_${response.status}`,
    body.error?.message ?? response.statusText,
    Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(retryAfter) : undefined,
  );
}

/**
 * What to tell the person about a failure, in words and with what to do next.
 *
 * @example describeError(new ApiError(429, "rate_limited", "", 12)) // "Too many messages, try again in 12 s."
 */
export function describeError(error: unknown, isIdentified = false): string {
  if (!(error instanceof ApiError)) return "Something went wrong. Please try again.";
  if (error.code === "origin_not_allowed") return "This site is not allowed to use this chat.";
  if (error.status === 429)
    return error.retryAfter
      ? `Too many messages, try again in ${error.retryAfter} s.`
      : "Too many messages, try again in a moment.";
  if (error.code === "end_user_limit_reached")
    return "You have reached the usage limit of this chat for today. Please try again tomorrow.";
  if (error.status === 402) return "This chat is not available at the moment. Please try again later.";
  if (error.status === 404 && error.code === "app_not_found") return "This chat does not exist (any more).";
  if (error.status === 401)
    return isIdentified
      ? "Your sign-in to this site has expired. Reload the page to continue."
      : "Your session has expired. Reload the page to continue.";
  if (error.status === 0)
    return error.code === "stream_interrupted"
      ? "The connection was lost before the answer finished. Please try again."
      : "The chat service could not be reached. Check your connection and try again.";
  return error.message || "Something went wrong. Please try again.";
}
