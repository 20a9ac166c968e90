import { PaycoreError, type CallResult, type Success } from "./errors.js";

/** Options of withIdempotency. */
export interface IdempotencyOptions {
  /** The Idempotency-Key (at most 255 characters); a random UUID when absent. */
  key?: string;
  /** How many times the request is sent at most, the first included (default 5). */
  attempts?: number;
  /** The first backoff delay when the answer carries no Retry-After (default 250 ms); it doubles. */
  baseDelayMs?: number;
  /** The longest wait between two attempts, Retry-After included (default 30 s). */
  maxDelayMs?: number;
  /** Stops the waiting (and is the reason thrown) when aborted. */
  signal?: AbortSignal;
  /** Called before each wait: the attempt just made (1-based), the delay and why. */
  onRetry?: (info: RetryInfo) => void;
  /** Waits; replaceable in tests. Defaults to a timer that the signal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** What onRetry is told. */
export interface RetryInfo {
  key: string;
  attempt: number;
  delayMs: number;
  /** The status that is retried, or undefined for a request that got no answer. */
  status?: number;
  /** The error code (IDEMPOTENCY_REQUEST_IN_PROGRESS, RATE_LIMITED, ...) or the network error's message. */
  reason: string;
}

/** The header withIdempotency passes to the call. */
export type IdempotencyHeaders = { "Idempotency-Key": string };

/**
 * Sends a POST with an Idempotency-Key and sends it again, with the same key, when that is
 * safe: after a network error (no answer), a 5xx but 501 (never stored by the service), a 429, and a
 * 409 IDEMPOTENCY_REQUEST_IN_PROGRESS (the first request is still running). The wait is the
 * answer's Retry-After when it has one, else an exponential backoff from baseDelayMs, capped
 * at maxDelayMs either way. Other 4xx answers (422 IDEMPOTENCY_KEY_REUSED among them) are
 * never resent. `call` must send the same request each time with the header merged in:
 *
 *     const { data } = await withIdempotency(
 *       (headers) => client.POST("/quotes", { body, headers }), { attempts: 5 });
 *
 * The successful result is returned (a replay of the stored answer carries
 * `Idempotent-Replayed: true`); an error answer is thrown as a PaycoreError, and the last
 * network error (fetch's TypeError) is rethrown when every attempt failed without an answer;
 * any other error the call throws is rethrown at once. A PaycoreError
 * thrown by `call` itself (signedRetry inside withIdempotency) is treated like the answer it
 * stands for.
 */
export async function withIdempotency<R extends CallResult>(
  call: (headers: IdempotencyHeaders) => Promise<R>,
  options: IdempotencyOptions = {},
): Promise<Success<R>> {
  const key = options.key ?? crypto.randomUUID();
  const attempts = Math.max(1, Math.floor(options.attempts ?? 5));
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? defaultSleep;
  const signal = options.signal;

  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    let failure: PaycoreError | undefined;
    let networkError: unknown;
    try {
      const result = await call({ "Idempotency-Key": key });
      if (result.response.ok) return result as Success<R>;
      failure = PaycoreError.fromResult(result);
    } catch (err) {
      if (err instanceof PaycoreError) failure = err;
      else if (isNetworkError(err, signal)) networkError = err;
      else throw err;
    }
    if (failure && !isRetryable(failure)) throw failure;
    if (attempt >= attempts) {
      if (failure) throw failure;
      throw networkError;
    }
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const delayMs = failure?.retryAfterMs !== undefined ? Math.min(maxDelayMs, failure.retryAfterMs) : backoff;
    options.onRetry?.({
      key,
      attempt,
      delayMs,
      ...(failure ? { status: failure.status } : {}),
      reason: failure ? failure.code : networkError instanceof Error ? networkError.message : String(networkError),
    });
    await sleep(delayMs, signal);
  }
}

/**
 * Whether an error answer may be sent again with the same Idempotency-Key: a 5xx (but 501,
 * which answers the same every time), a 429, a 409 IDEMPOTENCY_REQUEST_IN_PROGRESS.
 */
export function isRetryable(err: PaycoreError): boolean {
  if (err.status >= 500) return err.status !== 501;
  if (err.status === 429) return true;
  return err.status === 409 && err.code === "IDEMPOTENCY_REQUEST_IN_PROGRESS";
}

/**
 * Whether a thrown error means the request got no answer: fetch rejects with a TypeError then
 * ("fetch failed" in Node, "Failed to fetch" in browsers). An abort, or any other error thrown
 * by the call (a failing signer, a bug), is not resent.
 */
function isNetworkError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return false;
  return err instanceof TypeError;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
