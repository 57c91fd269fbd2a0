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

/**
 * Calls the builder API with the session cookie; non-2xx answers throw ApiError with the server's message.
 *
 * @example const agents = await api<Page<Agent>>("/api/agents");
 */
export async function api<T>(
  path: string,
  options: { method?: string; json?: unknown; body?: BodyInit; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method: options.method ?? (options.json === undefined && options.body === undefined ? "GET" : "POST"),
    headers,
    credentials: "same-origin",
    body: options.json !== undefined ? JSON.stringify(options.json) : (options.body ?? null),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const data: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const body = data as Partial<ApiErrorBody> | null;
    throw new ApiError(
      response.status,
      body?.error?.code ?? "http_error",
      body?.error?.message ?? `The server answered ${response.status}.`,
      body?.error?.details ?? [],
    );
  }
  return data as T;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
