/** The API's error body, as every non-2xx answer carries it. */
export interface ApiErrorBody {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    details?: { path: string; message: string }[];
  };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }

  /** The message for one field, to show beside its input. */
  fieldMessage(path: string): string | undefined {
    return this.details.find((detail) => detail.path === path)?.message;
  }
}

/** What the user reads when no answer came back at all (server down, offline, connection cut). */
export const UNREACHABLE_MESSAGE = "Could not reach the server. Check your connection and try again.";

/** True for the failures where the server never answered, so nothing it holds was changed. */
export function isNetworkError(error: unknown): boolean {
  return error instanceof ApiError && error.status === 0;
}

type ConnectionListener = (isReachable: boolean) => void;
const connectionListeners = new Set<ConnectionListener>();
let isServerReachable = true;

function setReachable(isReachable: boolean) {
  if (isReachable === isServerReachable) return;
  isServerReachable = isReachable;
  for (const listener of connectionListeners) listener(isReachable);
}

/** Follows whether the last request reached the server; the offline banner listens to it. */
export function onConnectionChange(listener: ConnectionListener): () => void {
  connectionListeners.add(listener);
  return () => connectionListeners.delete(listener);
}

export function serverReachable(): boolean {
  return isServerReachable;
}

/**
 * `fetch` that turns "no answer" (a TypeError from the browser, whose message is a bare
 * "Failed to fetch") into an ApiError the screens already know how to show.
 */
export async function request(path: string, init: RequestInit): Promise<Response> {
  try {
    const response = await fetch(path, init);
    setReachable(true);
    return response;
  } catch (error) {
    if (init.signal?.aborted) throw error;
    setReachable(false);
    throw new ApiError(0, "network_error", UNREACHABLE_MESSAGE);
  }
}

/** Reads an error answer (JSON or a proxy's HTML page) as an ApiError. */
export function errorFromBody(status: number, text: string): ApiError {
  let body: Partial<ApiErrorBody> | null = null;
  try {
    body = text ? (JSON.parse(text) as Partial<ApiErrorBody>) : null;
  } catch {
    // A proxy's HTML error page: the status says enough.
  }
  return new ApiError(
    status,
    body?.error?.code ?? "http_error",
    body?.error?.message ?? statusMessage(status),
    body?.error?.details ?? [],
  );
}

function statusMessage(status: number): string {
  if (status === 502 || status === 503 || status === 504)
    return `The server is unavailable right now (${status}). Try again in a moment.`;
  return `The server answered ${status}.`;
}

/** What `api` and `apiWithEtag` send besides the path. */
export interface ApiOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  signal?: AbortSignal;
  /** The revision (ETag) the change is based on: another answers 412 edit_conflict. */
  ifMatch?: string | undefined;
}

/**
 * Calls the builder API with the session cookie; non-2xx answers throw ApiError with the server's
 * message, and a request that got no answer throws ApiError with status 0.
 *
 * @example const agents = await api<Page<Agent>>("/api/agents");
 */
export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  return (await apiWithEtag<T>(path, options)).data;
}

/**
 * `api`, also answering the `ETag` of the answer (the revision of an agent, a workflow or an app),
 * which a later change sends back as `ifMatch`.
 *
 * @example const { data, etag } = await apiWithEtag<Workflow>(`/api/workflows/${id}`);
 */
export async function apiWithEtag<T>(
  path: string,
  options: ApiOptions = {},
): Promise<{ data: T; etag: string | null }> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.json !== undefined) headers["content-type"] = "application/json";
  if (options.ifMatch) headers["if-match"] = options.ifMatch;
  const response = await request(path, {
    method: options.method ?? (options.json === undefined && options.body === undefined ? "GET" : "POST"),
    headers,
    credentials: "same-origin",
    body: options.json !== undefined ? JSON.stringify(options.json) : (options.body ?? null),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const etag = response.headers.get("etag");
  if (response.status === 204) return { data: undefined as T, etag };
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, "network_error", UNREACHABLE_MESSAGE);
  }
  if (!response.ok) throw errorFromBody(response.status, text);
  try {
    return { data: (text ? JSON.parse(text) : null) as T, etag };
  } catch {
    throw new ApiError(
      response.status,
      "invalid_response",
      "The server sent an answer the studio cannot read.",
    );
  }
}

/** Whether an error is the API's 412: someone else saved since the revision the change was based on. */
export function isEditConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 412;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Every item of a cursor-paged list, following `has_more` and `next_cursor` 100 at a time (the
 * API's most): the studio's lists and pickers show all of a workspace's items, and a single
 * `?limit=100` silently dropped the rest. Answers one page holding them all, in the API's order.
 *
 * @example const agents = await allPages<Agent>("/api/agents");
 */
export async function allPages<T>(path: string): Promise<Page<T>> {
  const data: T[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const after = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page: Page<T> = await api<Page<T>>(`${path}${separator}limit=100${after}`);
    data.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
    // A cursor the server already gave would page forever: stop rather than spin.
    if (cursor !== null && seen.has(cursor)) break;
    if (cursor !== null) seen.add(cursor);
  } while (cursor !== null);
  return { data, has_more: false, next_cursor: null };
}
