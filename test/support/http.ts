export type ApiResponse<T = unknown> = { status: number; headers: Headers; body: T };

/** A small HTTP client for tests: JSON in, JSON (or problem+json) out, bearer key optional. */
export function apiClient(baseUrl: string, defaultKey?: string) {
  async function call<T = unknown>(
    method: string,
    path: string,
    options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const key = options.key === undefined ? defaultKey : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key) headers.authorization = `Bearer ${key}`;
    let body: RequestInit['body'];
    if (options.body instanceof FormData || typeof options.body === 'string') body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}/api/v1${path}`, { method, headers, body });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, headers: response.headers, body: (type.includes('json') && text ? JSON.parse(text) : text) as T };
  }
  return {
    call,
    get: <T = unknown>(path: string, options?: Parameters<typeof call>[2]) => call<T>('GET', path, options),
    post: <T = unknown>(path: string, body?: unknown, options?: Parameters<typeof call>[2]) => call<T>('POST', path, { ...options, body }),
    put: <T = unknown>(path: string, body?: unknown, options?: Parameters<typeof call>[2]) => call<T>('PUT', path, { ...options, body }),
    delete: <T = unknown>(path: string, options?: Parameters<typeof call>[2]) => call<T>('DELETE', path, options),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
