// A typed client for the paycore API (types generated from api/openapi.yaml by
// openapi-typescript, requests by openapi-fetch) with helpers for what is not plain REST:
// webhook verification, the wallet's signed retry and Idempotency-Key retries.
export * from "./browser.js";
export {
  verifyWebhook,
  verifyEcdsa,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  webhookDataSchemas,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookScheme,
} from "./webhooks.js";
