// verifyWebhook against webhooks signed by the service's own signer (internal/webhooksig):
// the Go test TestTypeScriptClient writes the cases to PAYCORE_CLIENT_FIXTURES and runs this.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { verifyWebhook, WebhookVerificationError, webhookDataSchemas } from "../dist/index.js";

const path = process.env.PAYCORE_CLIENT_FIXTURES;
const fixtures = path ? JSON.parse(readFileSync(path, "utf8")) : undefined;
const skip = fixtures ? false : "no PAYCORE_CLIENT_FIXTURES (run through `go test ./examples/client`)";

test("webhooks signed by internal/webhooksig", { skip }, async (t) => {
  assert.ok(fixtures.webhooks.length > 10);
  for (const c of fixtures.webhooks) {
    await t.test(c.name, async () => {
      const opts = {
        ...(c.signingKeyPem ? { signingKeyPem: c.signingKeyPem } : {}),
        ...(c.secrets ? { secrets: c.secrets } : {}),
        ...(c.schemes ? { schemes: c.schemes } : {}),
      };
      // The same webhook as a string and as bytes, with a fetch Headers and a Node-style record.
      const inputs = [
        { rawBody: c.body, headers: new Headers(c.headers) },
        { rawBody: Buffer.from(c.body, "utf8"), headers: lower(c.headers) },
        { rawBody: new TextEncoder().encode(c.body), headers: c.headers },
      ];
      for (const input of inputs) {
        if (c.valid) {
          const event = await verifyWebhook({ ...input, ...opts });
          assert.deepEqual(event, JSON.parse(c.body));
        } else {
          await assert.rejects(verifyWebhook({ ...input, ...opts }), (err) => {
            assert.ok(err instanceof WebhookVerificationError, `not a WebhookVerificationError: ${err}`);
            assert.equal(err.scheme, c.failedScheme, err.message);
            assert.match(err.message, new RegExp(c.error), err.message);
            return true;
          });
        }
      }
    });
  }
});

test("a webhook with a malformed signature is refused, not thrown past", { skip }, async () => {
  const c = fixtures.webhooks.find((w) => w.valid && !w.schemes);
  for (const bad of ["", "not base64!", "MEUCIQ==", Buffer.from("30440220").toString("base64")]) {
    await assert.rejects(
      verifyWebhook({ rawBody: c.body, headers: { ...c.headers, "X-Service-Signature": bad }, signingKeyPem: c.signingKeyPem, secrets: c.secrets }),
      (err) => err instanceof WebhookVerificationError && err.scheme === "ecdsa",
    );
  }
});

function lower(headers) {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

test("webhookDataSchemas follows the WebhookEnvelope rules of api/openapi.yaml", { skip }, () => {
  assert.deepEqual({ ...webhookDataSchemas }, fixtures.webhookDataSchemas);
});
