/** A failed call: the RFC 9457 problem document the service answered, or what stood in for one. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{ detail?: string, title?: string, requestId?: string } | null} problem
   */
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? `The service answered ${status}.`);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * @typedef {{ status: number, body: any, next: string | null }} ApiResponse
 * @typedef {{ get(path: string): Promise<ApiResponse>, post(path: string, body?: unknown): Promise<ApiResponse>, delete(path: string): Promise<ApiResponse> }} Api
 */

/**
 * Calls the service with the bearer key. Paths are absolute on this origin (`/api/v1/…`, `/dashboard/api/…`).
 * `onUnauthorized` runs when the key stops being accepted (deleted, deactivated, expired), before the call fails.
 *
 * @param {string} key
 * @param {(error: ApiError) => void} [onUnauthorized]
 * @returns {Api}
 */
export function createApi(key, onUnauthorized) {
  /** @returns {Promise<ApiResponse>} */
  async function request(method, path, body) {
    const headers = { authorization: `Bearer ${key}`, accept: 'application/json, application/problem+json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ApiError(0, { detail: 'The service cannot be reached: check your connection and try again.' });
    }
    const payload = await readJson(response);
    if (!response.ok) {
      const error = new ApiError(response.status, payload);
      if (response.status === 401) onUnauthorized?.(error);
      throw error;
    }
    return { status: response.status, body: payload, next: nextLink(response.headers.get('link')) };
  }
  return {
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body),
    delete: (path) => request('DELETE', path),
  };
}

async function readJson(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    // A proxy's HTML error page, say: keep the status, drop the body.
    return null;
  }
}

/** The `rel="next"` target of an RFC 8288 Link header (the service links relative paths), or null. */
function nextLink(header) {
  if (!header) return null;
  const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(header);
  return match ? match[1] : null;
}
