// The parts of the client that run in browsers as well as in Node 20+: the typed client, the
// signed retry, Idempotency-Key retries and the error type. Webhook verification, which needs
// the platform's secret, is in the main entry point only (server side).
export { createPaycoreClient, basicAuth, type PaycoreClient, type PaycoreClientOptions } from "./client.js";
export { PaycoreError, unwrap, isEnvelope, parseRetryAfter, type ErrorEnvelope, type CallResult, type Success } from "./errors.js";
export {
  signedRetry,
  isSignedRetryChallenge,
  SignedRetryError,
  type SignedRetryChallenge,
  type SignedRetryHeaders,
  type SignFn,
  type SignedResult,
} from "./signed-retry.js";
export {
  withIdempotency,
  isRetryable,
  type IdempotencyOptions,
  type IdempotencyHeaders,
  type RetryInfo,
} from "./idempotency.js";
export type { paths, components, operations } from "./schema.js";
