import { PaycoreError, type CallResult, type Success } from "./errors.js";
import type { components } from "./schema.js";

/** The `202` answer of a request that needs a wallet session signature. */
export type SignedRetryChallenge = components["schemas"]["AuthSignedRequestChallenge"];

/** A successful result whose data is the final answer, never the challenge. */
export type SignedResult<R> = R extends { data: infer D } ? Omit<R, "data"> & { data: Exclude<D, SignedRetryChallenge> } : R;

/** The two headers of the signed retry; empty on the first call. */
export type SignedRetryHeaders =
  | Record<string, never>
  | { "Service-Wallet-Signature": string; "Request-Id": string };

/**
 * Makes the device's stamp over `payloadToSign` (exactly as given), e.g.
 * `(p) => stamper.stamp(p).then((s) => s.stampHeaderValue)` with `@turnkey/api-key-stamper`
 * and the session key.
 */
export type SignFn = (payloadToSign: string, challenge: SignedRetryChallenge) => string | Promise<string>;

/**
 * A signed retry that could not be completed on the client's side: sign() failed or returned
 * no stamp, or the signed request was challenged again. Never resent by withIdempotency.
 */
export class SignedRetryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SignedRetryError";
  }
}

/** Whether a call's answer is a signed retry's challenge (202 with payloadToSign and requestId). */
export function isSignedRetryChallenge(result: CallResult): result is CallResult & { data: SignedRetryChallenge } {
  if (result.response.status !== 202) return false;
  const d = result.data as Partial<SignedRetryChallenge> | undefined;
  return typeof d?.payloadToSign === "string" && typeof d.requestId === "string";
}

/**
 * Runs a call that may need the account's wallet signature. `call` must send the same
 * request each time (same method, path and body) with the headers it is given merged in:
 *
 *     const res = await signedRetry(
 *       (headers) => client.DELETE("/auth/sessions/{id}", { params: { path: { id } }, headers }),
 *       (payload) => stamper.stamp(payload).then((s) => s.stampHeaderValue));
 *
 * The first call goes without signature headers. If it answers 202 with `payloadToSign`,
 * `sign` stamps the payload and the call is repeated once with `Service-Wallet-Signature`
 * and `Request-Id`. The final successful result is returned (also a first answer that needed
 * no signature); an error answer, of either call, is thrown as a PaycoreError, whose message
 * names the failed check of a 401 (`reason`: "Invalid Service-Wallet-Signature",
 * "Request-Id already used", "Signed retry expired"); a failing `sign` is a SignedRetryError.
 * A refused retry cannot be repeated: call signedRetry again for a new challenge.
 */
export async function signedRetry<R extends CallResult>(
  call: (headers: SignedRetryHeaders) => Promise<R>,
  sign: SignFn,
): Promise<SignedResult<Success<R>>> {
  const first = await call({});
  if (!first.response.ok) throw PaycoreError.fromResult(first);
  if (!isSignedRetryChallenge(first)) return first as unknown as SignedResult<Success<R>>;
  const challenge = first.data;
  let stamp: string;
  try {
    stamp = await sign(challenge.payloadToSign, challenge);
  } catch (err) {
    throw new SignedRetryError(`signed retry: signing payloadToSign of ${challenge.requestId} failed: ${describe(err)}`, {
      cause: err,
    });
  }
  if (typeof stamp !== "string" || stamp === "") {
    throw new SignedRetryError("signed retry: sign() must return the stamp (the Service-Wallet-Signature value) as a string");
  }
  const second = await call({ "Service-Wallet-Signature": stamp, "Request-Id": challenge.requestId });
  if (!second.response.ok) {
    const err = PaycoreError.fromResult(second);
    if (err.status === 401) {
      const envelope = second.error as { message?: unknown };
      throw new PaycoreError(
        {
          status: err.status,
          code: err.code,
          message: `signed retry refused: ${typeof envelope?.message === "string" ? envelope.message : err.message}`,
          ...(err.details ? { details: err.details } : {}),
          ...(err.reason ? { reason: err.reason } : {}),
        },
        second.response,
      );
    }
    throw err;
  }
  if (isSignedRetryChallenge(second)) {
    throw new SignedRetryError("signed retry: the signed request was answered with another challenge (was the request repeated identically?)");
  }
  return second as unknown as SignedResult<Success<R>>;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
