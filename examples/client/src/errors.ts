import type { components } from "./schema.js";

/** The service's error envelope, `{status, code, message, details?, reason?}` (schema `Error`). */
export type ErrorEnvelope = components["schemas"]["Error"];

/** The shape every openapi-fetch call resolves to: parsed data or error, and the raw response. */
export interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The success branch of an openapi-fetch result (helpers throw the error branch instead). */
export type Success<R> = R extends { error?: never } ? R : never;

/**
 * An error answer of the service as an exception: the envelope's `status`, `code`, `message`,
 * `details` and `reason` (set on wallet-authentication 401s), plus the `X-Request-Id` to quote
 * when reporting it and `retryAfterMs` when the answer carried `Retry-After`.
 */
export class PaycoreError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: Record<string, unknown>;
  readonly reason?: string;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly response?: Response;

  constructor(envelope: ErrorEnvelope, response?: Response) {
    super(envelope.reason ? `${envelope.message} (${envelope.reason})` : envelope.message);
    this.name = "PaycoreError";
    this.status = envelope.status;
    this.code = envelope.code;
    if (envelope.details !== undefined) this.details = envelope.details;
    if (envelope.reason !== undefined) this.reason = envelope.reason;
    const requestId = response?.headers.get("X-Request-Id");
    if (requestId) this.requestId = requestId;
    const retryAfter = parseRetryAfter(response?.headers.get("Retry-After"));
    if (retryAfter !== undefined) this.retryAfterMs = retryAfter;
    if (response) this.response = response;
  }

  /**
   * The error of a failed call: its envelope when the body is one, else a generic one
   * (`HTTP_<status>`) for answers that did not come from the service (a proxy's 502, ...).
   */
  static fromResult(result: CallResult): PaycoreError {
    const { error, response } = result;
    if (isEnvelope(error)) return new PaycoreError(error, response);
    return new PaycoreError(
      {
        status: response.status,
        code: `HTTP_${response.status}`,
        message: `${response.status} ${response.statusText || "error"} without the service's error envelope`,
      },
      response,
    );
  }
}

/** Whether a value has the error envelope's required members. */
export function isEnvelope(v: unknown): v is ErrorEnvelope {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.status === "number" && typeof e.code === "string" && typeof e.message === "string";
}

/**
 * The data of a successful call (undefined for a bodiless answer such as 204); a failed one is
 * thrown as a PaycoreError.
 */
export function unwrap<R extends CallResult>(result: R): NonNullable<R["data"]> {
  if (!result.response.ok) throw PaycoreError.fromResult(result);
  return result.data as NonNullable<R["data"]>;
}

/**
 * Retry-After in milliseconds: delay-seconds or an HTTP date (RFC 9110); undefined when the
 * header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
