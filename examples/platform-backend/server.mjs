// The reference platform backend of the integrator kit: it serves the wallet page and a small
// JSON API for it, relays the wallet's passkey ceremonies, sessions and signed retries to
// paycore with the platform's token, and receives webhooks with both signatures verified.
// It holds no wallet secret: the session key is decrypted and used in the browser only.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPaycoreClient, PaycoreError, unwrap, verifyWebhook, withIdempotency } from "@paycore/client";

/** The backend's settings, all from the environment. */
export function configFromEnv(env = process.env) {
  const need = (name) => {
    const v = env[name];
    if (!v) throw new Error(`${name} is required (see docs/api/integrator-kit.md in the repository)`);
    return v;
  };
  const listen = env.KIT_LISTEN || "127.0.0.1:3000";
  const [host, port] = splitHostPort(listen);
  const origin = (env.KIT_PUBLIC_ORIGIN || `http://localhost:${port}`).replace(/\/+$/, "");
  return {
    baseUrl: need("PAYCORE_BASE_URL"),
    tokenId: need("PAYCORE_TOKEN_ID"),
    secret: need("PAYCORE_TOKEN_SECRET"),
    host,
    port,
    origin,
    rpId: new URL(origin).hostname,
    webhookUrl: env.KIT_WEBHOOK_URL || `http://${host}:${port}/webhooks`,
    walletDir: resolve(env.KIT_WALLET_DIR || fileURLToPath(new URL("../wallet-web/dist", import.meta.url))),
    fundAmount: Number(env.KIT_FUND_AMOUNT || 100_000_000),
    appName: env.KIT_APP_NAME || "Paycore wallet",
  };
}

function splitHostPort(addr) {
  const i = addr.lastIndexOf(":");
  if (i < 0) throw new Error(`KIT_LISTEN must be host:port, not ${addr}`);
  return [addr.slice(0, i) || "127.0.0.1", Number(addr.slice(i + 1))];
}

/** An error of the backend itself, sent to the page in the service's error envelope. */
class KitError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const currencies = ["USD", "USDC", "EUR"].map((currencyCode) => ({
  currencyCode,
  minAmount: 1,
  maxAmount: 1_000_000_000,
  enabledTransactionTypes: ["INCOMING", "OUTGOING"],
  requiredCounterpartyFields: [],
}));

/**
 * Configures the platform (webhook endpoint, passkey relying party, currencies), reads the
 * webhook keys and starts the HTTP server. Resolves to {server, url} once listening.
 */
export async function start(cfg) {
  const api = createPaycoreClient({ baseUrl: cfg.baseUrl, tokenId: cfg.tokenId, secret: cfg.secret });
  // The keys first: the PATCH below sends a TEST event at once.
  const { publicKey: signingKeyPem } = unwrap(await api.GET("/webhooks/signing-key"));
  const { secret: webhookSecret } = unwrap(await api.GET("/webhooks/secret"));
  const { isRegulatedFinancialInstitution: regulated } = unwrap(await api.GET("/config"));
  const events = [];
  const registrations = new Map(); // accountId → {challenge, expires}: the passkey challenges this backend issued

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error(`${req.method} ${req.url}: ${err instanceof PaycoreError ? `${err.status} ${err.code}: ${err.message}` : err.message}`);
      sendError(res, err);
    });
  });

  async function handle(req, res) {
    const url = new URL(req.url, cfg.origin);
    const route = `${req.method} ${url.pathname}`;
    if (url.pathname === "/webhooks" && req.method === "POST") return webhook(req, res);
    if (!url.pathname.startsWith("/api/")) return serveStatic(res, url.pathname);
    const body = req.method === "POST" ? await readJSON(req) : {};
    const q = (name) => {
      const v = url.searchParams.get(name);
      if (!v) throw new KitError(400, "INVALID_INPUT", `the query parameter ${name} is required`);
      return v;
    };
    const walletHeaders = () => {
      const h = {};
      const sig = req.headers["service-wallet-signature"];
      const rid = req.headers["request-id"];
      if (sig) h["Service-Wallet-Signature"] = sig;
      if (rid) h["Request-Id"] = rid;
      return h;
    };
    switch (route) {
      case "GET /api/config":
        return send(res, 200, { rpId: cfg.rpId, rpName: cfg.appName, origin: cfg.origin });

      case "POST /api/signup": {
        const email = field(body, "email");
        const fullName = field(body, "fullName");
        const customer = await createVerifiedCustomer(email, fullName);
        const accounts = unwrap(
          await api.GET("/customers/internal-accounts", { params: { query: { customerId: customer.id, type: "EMBEDDED_WALLET" } } }),
        );
        const wallet = accounts.data[0];
        if (!wallet) throw new KitError(500, "NO_WALLET", "the customer got no embedded wallet: is embeddedWalletConfig set?");
        // Sandbox money, so the demo has something to send.
        unwrap(await api.POST("/sandbox/internal-accounts/{accountId}/fund", { params: { path: { accountId: wallet.id } }, body: { amount: cfg.fundAmount } }));
        const external = (
          await withIdempotency((headers) =>
            api.POST("/customers/external-accounts", { body: euroAccount(customer.id, fullName), headers }),
          )
        ).data;
        return send(res, 201, { customerId: customer.id, accountId: wallet.id, externalAccountId: external.id, email, fullName });
      }

      case "POST /api/passkeys/options": {
        // The registration challenge is the platform's: random, remembered for five minutes.
        const accountId = field(body, "accountId");
        const challenge = randomBytes(32).toString("base64url");
        registrations.set(accountId, { challenge, expires: Date.now() + 5 * 60_000 });
        return send(res, 200, {
          challenge,
          rp: { id: cfg.rpId, name: cfg.appName },
          // The service checks the user handle against the wallet: its id's 16 bytes.
          user: { id: uuidBytes(accountId).toString("base64url"), name: field(body, "name"), displayName: field(body, "name") },
          pubKeyCredParams: [
            { type: "public-key", alg: -7 },
            { type: "public-key", alg: -257 },
          ],
        });
      }

      case "POST /api/passkeys": {
        const accountId = field(body, "accountId");
        const issued = registrations.get(accountId);
        registrations.delete(accountId);
        if (!issued || issued.expires < Date.now()) {
          throw new KitError(400, "REGISTRATION_EXPIRED", "no current registration challenge for this wallet: start the registration again");
        }
        const result = await api.POST("/auth/credentials", {
          body: { type: "PASSKEY", accountId, nickname: body.nickname || "Passkey", challenge: issued.challenge, attestation: body.attestation },
          headers: walletHeaders(),
        });
        return relay(res, result);
      }

      case "POST /api/sign-in/challenge": {
        const accountId = field(body, "accountId");
        const passkey = await credentialOf(accountId, "PASSKEY");
        const ch = unwrap(
          await api.POST("/auth/credentials/{id}/challenge", { params: { path: { id: passkey.id } }, body: { clientPublicKey: field(body, "clientPublicKey") } }),
        );
        return send(res, 200, { ...ch, authMethodId: passkey.id, rpId: cfg.rpId });
      }

      case "POST /api/sign-in/verify": {
        const result = await api.POST("/auth/credentials/{id}/verify", {
          params: { path: { id: field(body, "authMethodId") } },
          body: { assertion: body.assertion },
          headers: { "Request-Id": field(body, "requestId") },
        });
        return relay(res, result);
      }

      case "POST /api/sign-in/email/challenge": {
        // A new one-time code by e-mail (at most one every 30 s; the service says how long to wait).
        const cred = await credentialOf(field(body, "accountId"), "EMAIL_OTP");
        unwrap(await api.POST("/auth/credentials/{id}/challenge", { params: { path: { id: cred.id } } }));
        return send(res, 200, { sent: true, to: cred.nickname });
      }

      case "POST /api/sign-in/email/verify": {
        const cred = await credentialOf(field(body, "accountId"), "EMAIL_OTP");
        return relay(
          res,
          await api.POST("/auth/credentials/{id}/verify", {
            params: { path: { id: cred.id } },
            body: { otp: field(body, "otp"), clientPublicKey: field(body, "clientPublicKey") },
          }),
        );
      }

      case "GET /api/session": {
        const accountId = q("accountId");
        const sessions = unwrap(await api.GET("/auth/sessions", { params: { query: { accountId } } }));
        const s = sessions.data.find((x) => x.id === q("sessionId"));
        return send(res, 200, { active: Boolean(s), ...(s ? { expiresAt: s.expiresAt } : {}) });
      }

      case "DELETE /api/session": {
        return relay(
          res,
          await api.DELETE("/auth/sessions/{id}", { params: { path: { id: q("sessionId") } }, headers: walletHeaders() }),
        );
      }

      case "GET /api/wallet": {
        const customerId = q("customerId");
        const accounts = unwrap(
          await api.GET("/customers/internal-accounts", { params: { query: { customerId, type: "EMBEDDED_WALLET" } } }),
        );
        const txs = unwrap(await api.GET("/transactions", { params: { query: { customerId, limit: 20 } } }));
        return send(res, 200, { accounts: accounts.data, transactions: txs.data });
      }

      case "POST /api/quotes": {
        const amount = Number(body.amount);
        if (!Number.isSafeInteger(amount) || amount <= 0) throw new KitError(400, "INVALID_INPUT", "amount must be a positive whole number of the smallest unit");
        const { data } = await withIdempotency((headers) =>
          api.POST("/quotes", {
            body: {
              source: { sourceType: "ACCOUNT", accountId: field(body, "accountId") },
              destination: { destinationType: "ACCOUNT", accountId: field(body, "externalAccountId") },
              lockedCurrencySide: "SENDING",
              lockedCurrencyAmount: amount,
              description: "Wallet payment",
            },
            headers,
          }),
        );
        return send(res, 201, data);
      }

      case "POST /api/quotes/execute": {
        // The page's stamp over the quote's payloadToSign, made up front on the device.
        const stamp = field(body, "stamp");
        const quoteId = field(body, "quoteId");
        const { data } = await withIdempotency((headers) =>
          api.POST("/quotes/{quoteId}/execute", {
            params: { path: { quoteId } },
            headers: { ...headers, "Service-Wallet-Signature": stamp },
          }),
        );
        return send(res, 200, data);
      }

      case "POST /api/credentials/email": {
        // A second credential needs the session's signature: a signed retry run by the page.
        return relay(
          res,
          await api.POST("/auth/credentials", {
            body: { type: "EMAIL_OTP", accountId: field(body, "accountId"), ...(body.email ? { email: body.email } : {}) },
            headers: walletHeaders(),
          }),
        );
      }

      case "POST /api/export": {
        return relay(
          res,
          await api.POST("/internal-accounts/{id}/export", {
            params: { path: { id: field(body, "accountId") } },
            body: { clientPublicKey: field(body, "clientPublicKey") },
            headers: walletHeaders(),
          }),
        );
      }

      case "GET /api/events":
        return send(res, 200, { data: events });
    }
    throw new KitError(404, "NOT_FOUND", `no route ${route}`);
  }

  /**
   * An INDIVIDUAL customer with a USDC wallet who may move money. A regulated platform attests
   * its own KYC (kycStatus APPROVED); any other platform, such as the one `make run` creates,
   * has the service verify the customer: the details and an identity document, then
   * POST /verifications, approved by the sandbox's provider a few seconds later. The details
   * and the document are placeholders for the sandbox; a real platform collects them.
   */
  async function createVerifiedCustomer(email, fullName) {
    const base = { customerType: "INDIVIDUAL", region: "US", email, fullName, currencies: ["USDC"] };
    if (regulated) {
      return (await withIdempotency((headers) => api.POST("/customers", { body: { ...base, kycStatus: "APPROVED" }, headers }))).data;
    }
    const customer = (
      await withIdempotency((headers) =>
        api.POST("/customers", {
          body: { ...base, birthDate: "1990-05-17", nationality: "US", address: { line1: "1 Main St", city: "San Francisco", postalCode: "94105", country: "US" } },
          headers,
        }),
      )
    ).data;
    const form = new FormData();
    form.set("documentType", "PASSPORT");
    form.set("country", "US");
    form.set("documentHolder", customer.id);
    form.set("file", new Blob([samplePNG], { type: "image/png" }), "passport.png");
    unwrap(await api.POST("/documents", { body: form }));
    let v = unwrap(await api.POST("/verifications", { body: { customerId: customer.id } }));
    const deadline = Date.now() + 60_000;
    while (v.verificationStatus === "IN_PROGRESS" && Date.now() < deadline) {
      await new Promise((ok) => setTimeout(ok, 250));
      v = unwrap(await api.GET("/verifications/{verificationId}", { params: { path: { verificationId: v.id } } }));
    }
    if (v.verificationStatus !== "APPROVED") {
      throw new KitError(502, "CUSTOMER_NOT_VERIFIED", `the customer's verification is ${v.verificationStatus}${v.errors?.length ? `: ${v.errors.map((e) => e.type).join(", ")}` : ""}`);
    }
    return customer;
  }

  /** The wallet's credential of a type, or a 404 saying there is none. */
  async function credentialOf(accountId, type) {
    const creds = unwrap(await api.GET("/auth/credentials", { params: { query: { accountId } } }));
    const cred = creds.data.find((c) => c.type === type);
    if (!cred) {
      throw new KitError(404, "NO_CREDENTIAL", type === "PASSKEY" ? "this wallet has no passkey yet: register one first" : "this wallet has no e-mail sign-in yet: add it once signed in");
    }
    return cred;
  }

  async function webhook(req, res) {
    const rawBody = await readRaw(req);
    try {
      const event = await verifyWebhook({ rawBody, headers: req.headers, signingKeyPem, secrets: [webhookSecret] });
      if (!events.some((e) => e.id === event.id)) {
        events.unshift({ id: event.id, type: event.type, timestamp: event.timestamp, data: event.data, verified: true });
        events.length = Math.min(events.length, 100);
      }
      send(res, 200, { received: true });
    } catch (err) {
      console.error(`webhook refused: ${err.message}`);
      send(res, 400, { status: 400, code: "WEBHOOK_NOT_VERIFIED", message: err.message });
    }
  }

  async function serveStatic(res, pathname) {
    const rel = normalize(decodeURIComponent(pathname === "/" ? "/index.html" : pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(cfg.walletDir, rel);
    if (!file.startsWith(cfg.walletDir)) throw new KitError(404, "NOT_FOUND", "not found");
    let content;
    try {
      content = await readFile(file);
    } catch {
      throw new KitError(404, "NOT_FOUND", `${pathname} not found (was the wallet page built with npm run build in examples/wallet-web?)`);
    }
    res.writeHead(200, { "Content-Type": types[extname(file)] || "application/octet-stream", "Cache-Control": "no-store" });
    res.end(content);
  }

  unwrap(
    await api.PATCH("/config", {
      body: {
        webhookEndpoint: cfg.webhookUrl,
        supportedCurrencies: currencies,
        embeddedWalletConfig: { appName: cfg.appName, passkeyRpId: cfg.rpId, passkeyOrigins: [cfg.origin] },
      },
    }),
  );
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(cfg.port, cfg.host, ok);
  });
  return { server, url: `http://${cfg.host}:${server.address().port}`, events };
}

const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".map": "application/json", ".svg": "image/svg+xml" };

// A 1×1 PNG: the identity document's placeholder for the sandbox's verification provider.
const samplePNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f80f00000101000518d84e0000000049454e44ae426082",
  "hex",
);

function euroAccount(customerId, fullName) {
  // A German test IBAN (mod 97 check digits), made up for the sandbox.
  const bban = `37040044${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}001`;
  return {
    customerId,
    currency: "EUR",
    accountInfo: {
      accountType: "EUR_ACCOUNT",
      iban: iban("DE", bban),
      beneficiary: {
        beneficiaryType: "INDIVIDUAL",
        fullName,
        address: { line1: "Unter den Linden 1", city: "Berlin", postalCode: "10117", country: "DE" },
      },
    },
  };
}

function iban(country, bban) {
  const digits = (bban + country + "00").replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  const check = 98n - (BigInt(digits) % 97n);
  return country + String(check).padStart(2, "0") + bban;
}

function uuidBytes(id) {
  const hex = id.replace(/^[A-Za-z]+:/, "").replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new KitError(400, "INVALID_INPUT", `${id} is not an account id`);
  return Buffer.from(hex, "hex");
}

function field(body, name) {
  const v = body?.[name];
  if (typeof v !== "string" || v.trim() === "") throw new KitError(400, "INVALID_INPUT", `${name} is required`);
  return v;
}

async function readRaw(req) {
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > 1 << 20) throw new KitError(413, "PAYLOAD_TOO_LARGE", "the body is larger than 1 MiB");
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

async function readJSON(req) {
  const raw = await readRaw(req);
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new KitError(400, "INVALID_INPUT", "the body is not JSON");
  }
}

function send(res, status, value) {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  res.end(JSON.stringify(value));
}

/** Passes the service's answer on as it is: a 202 challenge, a result, or its error envelope. */
function relay(res, result) {
  const { response } = result;
  if (response.status === 204) {
    res.writeHead(204);
    return res.end();
  }
  send(res, response.status, response.ok ? result.data : result.error);
}

/** Every error goes to the page in the service's envelope: status, code, message (and reason, details). */
function sendError(res, err) {
  if (res.headersSent) return res.end();
  if (err instanceof PaycoreError) {
    const suffix = err.reason ? ` (${err.reason})` : "";
    const message = suffix && err.message.endsWith(suffix) ? err.message.slice(0, -suffix.length) : err.message;
    return send(res, err.status, {
      status: err.status,
      code: err.code,
      message,
      ...(err.reason ? { reason: err.reason } : {}),
      ...(err.details ? { details: err.details } : {}),
    });
  }
  if (err instanceof KitError) return send(res, err.status, { status: err.status, code: err.code, message: err.message });
  console.error(err);
  const message = err instanceof TypeError && /fetch/.test(err.message) ? `paycore did not answer: ${err.cause?.message || err.message}` : String(err?.message || err);
  send(res, 502, { status: 502, code: "BACKEND_ERROR", message });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cfg = configFromEnv();
  start(cfg).then(
    ({ url }) => console.log(`platform backend listening on ${url}; wallet page at ${cfg.origin}/ (passkey rpId ${cfg.rpId})`),
    (err) => {
      console.error(`platform backend: ${err instanceof PaycoreError ? `${err.code}: ${err.message}` : err.stack || err}`);
      process.exit(1);
    },
  );
}
