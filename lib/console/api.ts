/**
 * The console's HTTP client: JSON in and out, the process key in `X-API-Key`, and every refusal
 * turned into an {@link ApiError} that carries the service's own sentence (docs/architecture.md, "Errors").
 *
 * @example
 * const status = await apiRequest<StatusBody>(key, "GET", "/v1/console/status");
 * @module
 */
import type { ValidationItem } from "./types.ts";

/** A `fetch`-compatible function (injected by tests). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** A refused or failed request. `status` 0 means the service could not be reached. */
export class ApiError extends Error {
  /** HTTP status, or 0 for a network failure. */
  readonly status: number;
  /** The service's sentence (`{detail}`), or a summary of the 422 items. */
  readonly detail: string;
  /** The 422 items, when the body had them. */
  readonly items: ValidationItem[];
  constructor(status: number, detail: string, items: ValidationItem[] = []) {
    super(status ? `${status}: ${detail}` : detail);
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
    this.items = items;
  }
}

/** Reads `{detail}` (a sentence or 422 items) from an error response. */
export async function errorFrom(res: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === "string") return new ApiError(res.status, detail);
  if (Array.isArray(detail)) {
    const items = detail as ValidationItem[];
    return new ApiError(res.status, items.map((i) => i.msg).join("; "), items);
  }
  return new ApiError(res.status, `The service answered ${res.status} ${res.statusText}.`.trim());
}

/**
 * Sends one request.
 * @param key the process API key (`null`: none is sent)
 * @param body JSON-serialised when given
 * @throws {ApiError} on a non-2xx answer or a network failure
 */
export async function apiRequest<T>(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  fetchFn: FetchLike = fetch,
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers["x-api-key"] = key;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetchFn(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "The service cannot be reached; check the network or the service.");
  }
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return undefined as T;
  return await res.json() as T;
}
