// The client, signedRetry and withIdempotency against a small local server that answers as
// the service does (Basic auth, the signed retry's 202 and its checks, Idempotency-Key
// outcomes with Retry-After).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import {
  createPaycoreClient,
  signedRetry,
  withIdempotency,
  unwrap,
  PaycoreError,
  SignedRetryError,
  parseRetryAfter,
} from "../dist/index.js";

const TOKEN = "0190a000-0000-7000-8000-0000000000aa";
const SECRET = "s3cr3t";
const BASE = "/api/2025-10-13";

let server;
let baseUrl;
let handler = () => {
  throw new Error("no handler");
};
const requests = [];

before(async () => {
  server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    const r = { method: req.method, path: req.url, headers: req.headers, body };
    requests.push(r);
    if (req.headers.authorization !== `Basic ${Buffer.from(`${TOKEN}:${SECRET}`).toString("base64")}`) {
      return send(res, 401, { status: 401, code: "UNAUTHORIZED", message: "invalid credentials" });
    }
    try {
      await handler(r, res);
    } catch (err) {
      send(res, 599, { status: 599, code: "TEST_HANDLER", message: String(err) });
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}${BASE}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

function send(res, status, body, headers = {}) {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, {
    "X-Request-Id": `req-${requests.length}`,
    ...(text ? { "Content-Type": "application/json" } : {}),
    ...headers,
  });
  res.end(text);
}

function client() {
  return createPaycoreClient({ baseUrl, tokenId: TOKEN, secret: SECRET });
}

function reset(h) {
  requests.length = 0;
  handler = h;
}

// A service-like signed retry: a challenge over method, path and body hash; the retry must
// repeat the request exactly, with a Request-Id issued once and a stamp `accept` approves.
function signedRetryService({ accept, done }) {
  const issued = new Map();
  let n = 0;
  return (r, res) => {
    const sig = r.headers["service-wallet-signature"];
    const rid = r.headers["request-id"];
    if (!sig && !rid) {
      const requestId = `Request:0190a000-0000-7000-8000-00000000000${++n}`;
      const payload = JSON.stringify({
        requestId,
        type: "EXPORT",
        accountId: "InternalAccount:0190a000-0000-7000-8000-000000000002",
        expiresAt: "2030-01-01T00:05:00Z",
        method: r.method,
        path: r.path,
        bodySha256: createHash("sha256").update(r.body).digest("hex"),
      });
      issued.set(requestId, { payload, method: r.method, path: r.path, body: r.body });
      return send(res, 202, { payloadToSign: payload, requestId, expiresAt: "2030-01-01T00:05:00Z" });
    }
    const ch = issued.get(rid);
    const refuse = (reason, message) =>
      send(res, 401, { status: 401, code: "UNAUTHORIZED", message, reason }, { "WWW-Authenticate": "Basic" });
    if (!sig || !ch) return refuse("Invalid Service-Wallet-Signature", "the signed retry is not valid");
    if (ch.used) return refuse("Request-Id already used", "this requestId was already used; start again without signature headers");
    ch.used = true;
    if (ch.method !== r.method || ch.path !== r.path || ch.body !== r.body || !accept(sig, ch.payload)) {
      return refuse("Invalid Service-Wallet-Signature", "the signed retry is not valid");
    }
    return done(r, res);
  };
}

const ACCOUNT = "InternalAccount:0190a000-0000-7000-8000-000000000002";
const CLIENT_KEY = "04" + "ab".repeat(64);
const exportCall = (api) => (headers) =>
  api.POST("/internal-accounts/{id}/export", {
    params: { path: { id: ACCOUNT } },
    body: { clientPublicKey: CLIENT_KEY },
    headers,
  });

test("the client sends Basic auth and types the answer", async () => {
  reset((r, res) => send(res, 200, { id: "Platform:x", platformId: "Platform:x" }));
  const { data, response } = await client().GET("/config");
  assert.equal(response.status, 200);
  assert.equal(data.platformId, "Platform:x");
  assert.equal(requests[0].path, `${BASE}/config`);

  const bad = createPaycoreClient({ baseUrl, tokenId: TOKEN, secret: "wrong" });
  const res = await bad.GET("/config");
  assert.throws(() => unwrap(res), (err) => err instanceof PaycoreError && err.status === 401 && err.code === "UNAUTHORIZED");
});

test("ids go into paths with their colon, as the service reads them; other characters are escaped", async () => {
  reset((r, res) => send(res, 200, { id: ACCOUNT, encryptedWalletCredentials: "x" }));
  await exportCall(client())({});
  assert.equal(requests[0].path, `${BASE}/internal-accounts/${ACCOUNT}/export`);
  reset((r, res) => send(res, 404, { status: 404, code: "TRANSACTION_NOT_FOUND", message: "not found" }));
  await client().GET("/transactions/{transactionId}", { params: { path: { transactionId: "a/b c:d" } } });
  assert.equal(requests[0].path, `${BASE}/transactions/a%2Fb%20c:d`);
});

test("signedRetry: 202, the device signs, the identical request with the two headers", async () => {
  const signed = [];
  reset(
    signedRetryService({
      accept: (sig, payload) => sig === `stamp(${payload})`,
      done: (r, res) => send(res, 200, { encryptedWalletCredentials: "bundle" }),
    }),
  );
  const res = await signedRetry(exportCall(client()), (payload, challenge) => {
    signed.push(payload);
    assert.equal(challenge.requestId, JSON.parse(payload).requestId);
    return `stamp(${payload})`;
  });
  assert.equal(res.response.status, 200);
  assert.equal(res.data.encryptedWalletCredentials, "bundle");
  assert.equal(requests.length, 2);
  assert.equal(signed.length, 1);
  assert.equal(requests[0].headers["service-wallet-signature"], undefined);
  assert.equal(requests[1].headers["request-id"], JSON.parse(signed[0]).requestId);
  assert.equal(requests[1].body, requests[0].body);
  assert.equal(JSON.parse(signed[0]).bodySha256, createHash("sha256").update(requests[0].body).digest("hex"));
});

test("signedRetry with a real stamp from @turnkey/api-key-stamper (checked by the Go side)", async (t) => {
  const path = process.env.PAYCORE_CLIENT_FIXTURES;
  if (!path) return t.skip("no PAYCORE_CLIENT_FIXTURES (run through `go test ./examples/client`)");
  const { sessionKey } = JSON.parse(readFileSync(path, "utf8"));
  const stamper = new ApiKeyStamper({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey });
  const stamps = [];
  reset(
    signedRetryService({
      accept: (sig, payload) => {
        stamps.push({ payload, stamp: sig });
        return true;
      },
      done: (r, res) => send(res, 204),
    }),
  );
  const api = client();
  for (const id of ["Session:0190a000-0000-7000-8000-000000000003", "Session:0190a000-0000-7000-8000-000000000004"]) {
    const res = await signedRetry(
      (headers) => api.DELETE("/auth/sessions/{id}", { params: { path: { id } }, headers }),
      (payload) => stamper.stamp(payload).then((s) => s.stampHeaderValue),
    );
    assert.equal(res.response.status, 204);
  }
  assert.equal(stamps.length, 2);
  writeFileSync(process.env.PAYCORE_CLIENT_OUT, JSON.stringify(stamps));
});

test("signedRetry: a refused signature is a PaycoreError naming the reason; no second retry", async () => {
  reset(signedRetryService({ accept: () => false, done: (r, res) => send(res, 200, {}) }));
  await assert.rejects(signedRetry(exportCall(client()), () => "bad-stamp"), (err) => {
    assert.ok(err instanceof PaycoreError);
    assert.equal(err.status, 401);
    assert.equal(err.code, "UNAUTHORIZED");
    assert.equal(err.reason, "Invalid Service-Wallet-Signature");
    assert.match(err.message, /^signed retry refused: .*\(Invalid Service-Wallet-Signature\)$/);
    assert.equal(err.requestId, "req-2");
    return true;
  });
  assert.equal(requests.length, 2);
});

test("signedRetry: a used Request-Id and an expired retry are told apart", async () => {
  for (const reason of ["Request-Id already used", "Signed retry expired"]) {
    reset((r, res) => {
      if (!r.headers["request-id"]) {
        return send(res, 202, { payloadToSign: "{}", requestId: "Request:1", expiresAt: "2030-01-01T00:00:00Z" });
      }
      send(res, 401, { status: 401, code: "UNAUTHORIZED", message: "refused", reason });
    });
    await assert.rejects(signedRetry(exportCall(client()), () => "stamp"), (err) => err.reason === reason && err.message.includes(reason));
  }
});

test("signedRetry: an answer without a challenge is returned; an error first answer is thrown", async () => {
  reset((r, res) => send(res, 200, { encryptedWalletCredentials: "x" }));
  let signs = 0;
  const ok = await signedRetry(exportCall(client()), () => {
    signs++;
    return "s";
  });
  assert.equal(ok.data.encryptedWalletCredentials, "x");
  assert.equal(signs, 0);
  assert.equal(requests.length, 1);

  reset((r, res) => send(res, 404, { status: 404, code: "ACCOUNT_NOT_FOUND", message: "no such account", details: { field: "id" } }));
  await assert.rejects(signedRetry(exportCall(client()), () => "s"), (err) => {
    return err instanceof PaycoreError && err.code === "ACCOUNT_NOT_FOUND" && err.details.field === "id" && err.status === 404;
  });
  assert.equal(requests.length, 1);
});

test("signedRetry: a failing sign() is reported, nothing is sent again", async () => {
  reset(signedRetryService({ accept: () => true, done: (r, res) => send(res, 200, {}) }));
  await assert.rejects(
    signedRetry(exportCall(client()), () => {
      throw new Error("device locked");
    }),
    (err) => err instanceof SignedRetryError && /signing payloadToSign of Request:.* failed: device locked/.test(err.message),
  );
  assert.equal(requests.length, 1);

  // nor by withIdempotency around it: only a request without an answer is resent
  reset(signedRetryService({ accept: () => true, done: (r, res) => send(res, 200, {}) }));
  const { sleep, delays } = recorder();
  await assert.rejects(
    withIdempotency(
      (idem) =>
        signedRetry(
          (sig) => exportCall(client())({ ...idem, ...sig }),
          () => Promise.reject(new Error("user cancelled")),
        ),
      { sleep },
    ),
    SignedRetryError,
  );
  assert.equal(requests.length, 1);
  assert.deepEqual(delays, []);
});

// withIdempotency: the service's outcomes in sequence, then success.
function sequence(...answers) {
  let i = 0;
  return (r, res) => {
    const a = answers[Math.min(i++, answers.length - 1)];
    if (a === "drop") return res.socket.destroy();
    send(res, a.status, a.body, a.headers);
  };
}

const quoteBody = {
  source: { sourceType: "ACCOUNT", accountId: ACCOUNT },
  destination: { destinationType: "ACCOUNT", accountId: "ExternalAccount:0190a000-0000-7000-8000-000000000005" },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: 1000,
};
const createQuote = (api) => (headers) => api.POST("/quotes", { body: quoteBody, headers });
const quote = { status: 201, body: { id: "Quote:1", status: "PENDING" } };
const err = (status, code, headers) => ({ status, body: { status, code, message: code.toLowerCase() }, headers });

function recorder() {
  const delays = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

test("withIdempotency: 5xx, 409 in progress, 429 and a dropped connection are resent with the same key", async () => {
  reset(
    sequence(
      err(503, "SERVICE_UNAVAILABLE"),
      err(409, "IDEMPOTENCY_REQUEST_IN_PROGRESS", { "Retry-After": "2" }),
      "drop",
      err(429, "RATE_LIMITED", { "Retry-After": "1" }),
      err(500, "INTERNAL_ERROR"),
      quote,
    ),
  );
  const { delays, sleep } = recorder();
  const retries = [];
  const res = await withIdempotency(createQuote(client()), {
    attempts: 6,
    baseDelayMs: 100,
    sleep,
    onRetry: (i) => retries.push(i),
  });
  assert.equal(res.response.status, 201);
  assert.equal(res.data.id, "Quote:1");
  assert.equal(requests.length, 6);
  const key = requests[0].headers["idempotency-key"];
  assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  for (const r of requests) {
    assert.equal(r.headers["idempotency-key"], key);
    assert.deepEqual(JSON.parse(r.body), quoteBody);
  }
  // backoff 100·2^(n-1) unless Retry-After says otherwise
  assert.deepEqual(delays, [100, 2000, 400, 1000, 1600]);
  assert.deepEqual(
    retries.map((r) => r.status),
    [503, 409, undefined, 429, 500],
  );
  assert.equal(retries[1].reason, "IDEMPOTENCY_REQUEST_IN_PROGRESS");
});

test("withIdempotency: the given key, and Retry-After capped at maxDelayMs", async () => {
  reset(sequence(err(429, "RATE_LIMITED", { "Retry-After": "3600" }), quote));
  const { delays, sleep } = recorder();
  const res = await withIdempotency(createQuote(client()), { key: "order-42", maxDelayMs: 5000, sleep });
  assert.equal(res.data.id, "Quote:1");
  assert.deepEqual(delays, [5000]);
  assert.deepEqual(
    requests.map((r) => r.headers["idempotency-key"]),
    ["order-42", "order-42"],
  );
});

test("withIdempotency: other 4xx, and 501, are never resent", async () => {
  for (const answer of [
    err(400, "INVALID_INPUT"),
    err(422, "IDEMPOTENCY_KEY_REUSED"),
    err(409, "QUOTE_NOT_PENDING"),
    err(404, "ACCOUNT_NOT_FOUND"),
    err(401, "UNAUTHORIZED"),
    err(501, "NOT_IMPLEMENTED"),
  ]) {
    reset(sequence(answer, quote));
    const { delays, sleep } = recorder();
    await assert.rejects(withIdempotency(createQuote(client()), { sleep }), (e) => {
      return e instanceof PaycoreError && e.status === answer.status && e.code === answer.body.code;
    });
    assert.equal(requests.length, 1, answer.body.code);
    assert.deepEqual(delays, []);
  }
});

test("withIdempotency: gives up after the attempts with the last answer or network error", async () => {
  reset(sequence(err(503, "SERVICE_UNAVAILABLE", { "Retry-After": "1" })));
  const { delays, sleep } = recorder();
  await assert.rejects(withIdempotency(createQuote(client()), { attempts: 3, sleep }), (e) => e instanceof PaycoreError && e.status === 503 && e.retryAfterMs === 1000);
  assert.equal(requests.length, 3);
  assert.deepEqual(delays, [1000, 1000]);

  reset(sequence("drop"));
  await assert.rejects(withIdempotency(createQuote(client()), { attempts: 2, sleep }), (e) => !(e instanceof PaycoreError));
  assert.equal(requests.length, 2);
});

test("withIdempotency around signedRetry: the same key on every request", async () => {
  let failedOnce = false;
  const svc = signedRetryService({
    accept: () => true,
    done: (r, res) => {
      if (!failedOnce) {
        failedOnce = true;
        return send(res, 503, { status: 503, code: "SERVICE_UNAVAILABLE", message: "try again" });
      }
      send(res, 200, { encryptedWalletCredentials: "bundle" });
    },
  });
  reset(svc);
  const api = client();
  const { sleep } = recorder();
  const res = await withIdempotency(
    (idem) =>
      signedRetry(
        (sig) =>
          api.POST("/internal-accounts/{id}/export", {
            params: { path: { id: ACCOUNT } },
            body: { clientPublicKey: CLIENT_KEY },
            headers: { ...idem, ...sig },
          }),
        () => "stamp",
      ),
    { key: "export-1", sleep },
  );
  assert.equal(res.data.encryptedWalletCredentials, "bundle");
  assert.equal(requests.length, 4);
  assert.ok(requests.every((r) => r.headers["idempotency-key"] === "export-1"));
});

test("parseRetryAfter reads seconds and HTTP dates", () => {
  assert.equal(parseRetryAfter("7"), 7000);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now), 5000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now), 0);
});

test("the browser entry point imports nothing but openapi-fetch and its own modules", () => {
  const seen = new Set();
  const external = new Set();
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(new URL(file, import.meta.url), "utf8");
    for (const [, spec] of src.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g)) {
      if (spec.startsWith("./")) walk(new URL(spec, new URL(file, import.meta.url)).href);
      else external.add(spec);
    }
  };
  walk("../dist/browser.js");
  assert.ok(seen.size >= 5, [...seen].join(" "));
  assert.deepEqual([...external], ["openapi-fetch"]);
});
