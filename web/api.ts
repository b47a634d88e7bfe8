// The pages' only way to the service: its HTTP API on the same origin (the session cookie goes along).

export interface ApiResult {
  status?: string;
  message?: string;
  [key: string]: unknown;
}

/** An API failure: the service's own message (it names the field at fault). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: ApiResult,
  ) {
    super(message);
  }
}

/**
 * Calls the API with a JSON body (or none) and answers the parsed JSON; a non-2xx answer throws ApiError
 * carrying the service's message.
 *
 * @example const { missions } = await api('GET', '/api/configure/missions')
 */
export async function api<T = ApiResult>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let json: ApiResult = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = { message: text };
  }
  if (!res.ok) throw new ApiError(json.message ?? `${res.status} ${res.statusText}`, res.status, json);
  return json as T;
}

/** `?a=1&b=2` from an object, skipping undefined values. */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  return `?${q}`;
}
