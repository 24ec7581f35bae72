// A thin fetch wrapper for tests: real HTTP, parsed JSON, headers at hand.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  token?: string;
  headers?: Record<string, string>;
  /** A value to send as JSON, or a raw string/Buffer sent as is. */
  body?: unknown;
  raw?: string | Buffer;
  contentType?: string;
}

export type ApiClient = {
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
};

export function apiClient(baseUrl: string): ApiClient {
  async function request(method: string, path: string, options: RequestOptions = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers["x-api-key"] = options.key;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      if (options.contentType) headers["content-type"] = options.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = options.contentType ?? "application/json";
    }
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: body as BodyInit | undefined,
      redirect: "manual",
    });
    const text = await res.text();
    let parsed: unknown = text;
    if (/json/.test(res.headers.get("content-type") ?? "") && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  }
  return {
    request,
    get: (path, options) => request("GET", path, options),
    post: (path, body, options) => request("POST", path, { ...options, body }),
    put: (path, body, options) => request("PUT", path, { ...options, body }),
    patch: (path, body, options) => request("PATCH", path, { ...options, body }),
    delete: (path, options) => request("DELETE", path, options),
  };
}

/** Every item of a paged list (`?limit=100`, then each `nextCursor` until there is none). */
export async function allPages<T = any>(
  api: ApiClient,
  path: string,
  key: string,
  field: string,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const res = await api.get(`${path}?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { key });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    all.push(...res.body[field]);
    cursor = res.body.nextCursor ?? undefined;
  } while (cursor);
  return all;
}
