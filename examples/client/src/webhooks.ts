import { Webhook, WebhookVerificationError as StandardError } from "standardwebhooks";
import type { components } from "./schema.js";

type Schemas = components["schemas"];

/** A webhook event type (schema WebhookEventType). */
export type WebhookEventType = Schemas["WebhookEventType"];

/**
 * The schema of each event type's `data`, as the WebhookEnvelope's if/then rules of
 * api/openapi.yaml say (null: free-form). tsc checks that every event type is here; the Go
 * test of examples/client checks it against the document.
 */
export const webhookDataSchemas = {
  TEST: null,
  INTERNAL_ACCOUNT_BALANCE_UPDATED: null,
  INTERNAL_ACCOUNT_STATUS_UPDATED: null,
  EXTERNAL_ACCOUNT_STATUS_UPDATED: "ExternalAccount",
  OUTGOING_PAYMENT_PENDING: "OutgoingTransaction",
  OUTGOING_PAYMENT_PROCESSING: "OutgoingTransaction",
  OUTGOING_PAYMENT_COMPLETED: "OutgoingTransaction",
  OUTGOING_PAYMENT_FAILED: "OutgoingTransaction",
  OUTGOING_PAYMENT_EXPIRED: "OutgoingTransaction",
  OUTGOING_PAYMENT_REFUND_PENDING: "OutgoingTransaction",
  OUTGOING_PAYMENT_REFUND_COMPLETED: "OutgoingTransaction",
  OUTGOING_PAYMENT_REFUND_FAILED: "OutgoingTransaction",
  INCOMING_PAYMENT_PENDING: "IncomingTransaction",
  INCOMING_PAYMENT_COMPLETED: "IncomingTransaction",
  INCOMING_PAYMENT_FAILED: "IncomingTransaction",
  INCOMING_PAYMENT_REFUND_PENDING: "IncomingTransaction",
  INCOMING_PAYMENT_REFUND_COMPLETED: "IncomingTransaction",
  INCOMING_PAYMENT_REFUND_FAILED: "IncomingTransaction",
  CUSTOMER_KYC_APPROVED: "Customer",
  CUSTOMER_KYC_REJECTED: "Customer",
  CUSTOMER_KYC_PENDING: "Customer",
  CUSTOMER_KYB_APPROVED: "Customer",
  CUSTOMER_KYB_REJECTED: "Customer",
  CUSTOMER_KYB_PENDING: "Customer",
  CUSTOMER_KYC_HOLD: "Customer",
  CUSTOMER_KYB_HOLD: "Customer",
  VERIFICATION_APPROVED: "Verification",
  VERIFICATION_REJECTED: "Verification",
  VERIFICATION_RESOLVE_ERRORS: "Verification",
  VERIFICATION_IN_PROGRESS: "Verification",
  VERIFICATION_PENDING_MANUAL_REVIEW: "Verification",
  VERIFICATION_READY_FOR_VERIFICATION: "Verification",
  INVITATION_CLAIMED: "UmaInvitation",
  BULK_UPLOAD_COMPLETED: "BulkCustomerImportJob",
  BULK_UPLOAD_FAILED: "BulkCustomerImportJob",
  AGENT_ACTION_PENDING_APPROVAL: "AgentAction",
} as const satisfies Record<WebhookEventType, keyof Schemas | null>;

/** A webhook of one event type, its `data` typed by that type's schema. */
export type WebhookEventOf<T extends WebhookEventType> = Omit<Schemas["WebhookEnvelope"], "type" | "data"> & {
  type: T;
  data: (typeof webhookDataSchemas)[T] extends infer S extends keyof Schemas ? Schemas[S] : Record<string, unknown>;
};

/**
 * A webhook body as the service sends it, `{id, type, timestamp, data}` (schema
 * WebhookEnvelope): a union over the event types, so checking `type` narrows `data`.
 */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

/** The two signature schemes of a webhook. */
export type WebhookScheme = "ecdsa" | "standard";

/** Request headers: a fetch Headers, or Node's IncomingHttpHeaders-like record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Input of verifyWebhook. */
export interface VerifyWebhookOptions {
  /** The request body exactly as received (never a re-serialised JSON.parse result). */
  rawBody: string | Uint8Array;
  headers: WebhookHeaders;
  /** The PEM public key of `GET /webhooks/signing-key`; needed for the "ecdsa" scheme. */
  signingKeyPem?: string;
  /**
   * The Standard Webhooks secret(s) of `GET /webhooks/secret` (`whsec_…`); needed for the
   * "standard" scheme. During a rotation either the new or the old one verifies.
   */
  secrets?: string | readonly string[];
  /**
   * The schemes that must verify; both by default. A platform that kept only one key may
   * pass `["ecdsa"]` or `["standard"]`, but only "standard" has replay protection (the
   * signed id and timestamp, refused when more than five minutes off).
   */
  schemes?: readonly WebhookScheme[];
}

/** A webhook that did not verify; `scheme` names the failed check. */
export class WebhookVerificationError extends Error {
  readonly scheme: WebhookScheme | "input";
  constructor(scheme: WebhookScheme | "input", message: string, options?: { cause?: unknown }) {
    super(`webhook ${scheme === "input" ? "verification" : scheme === "ecdsa" ? "X-Service-Signature" : "Standard Webhooks signature"} check failed: ${message}`, options);
    this.name = "WebhookVerificationError";
    this.scheme = scheme;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Verifies a webhook and returns its parsed event. By default both signatures must verify:
 * X-Service-Signature (ECDSA P-256 / SHA-256, base64 ASN.1 DER, over the raw body, with
 * signingKeyPem) and the Standard Webhooks headers (any `v1,` signature of webhook-signature
 * by any of `secrets`, over `id.timestamp.body`, with a webhook-timestamp within five minutes
 * of now). Throws a WebhookVerificationError naming the check that failed. Uses WebCrypto and
 * the standardwebhooks library only, so it runs in Node 20+ (and any WebCrypto runtime); it
 * belongs on the platform's server, which holds the secret.
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const schemes = options.schemes ?? ["ecdsa", "standard"];
  if (schemes.length === 0) throw new WebhookVerificationError("input", "no scheme to check");
  const text = typeof options.rawBody === "string" ? options.rawBody : decoder.decode(options.rawBody);

  if (schemes.includes("ecdsa")) {
    if (!options.signingKeyPem) {
      throw new WebhookVerificationError("input", 'signingKeyPem is needed for the "ecdsa" scheme');
    }
    const signature = header(options.headers, "x-service-signature");
    if (!signature) throw new WebhookVerificationError("ecdsa", "missing X-Service-Signature header");
    await verifyEcdsa(options.signingKeyPem, options.rawBody, signature);
  }
  if (schemes.includes("standard")) {
    const secrets = typeof options.secrets === "string" ? [options.secrets] : [...(options.secrets ?? [])];
    if (secrets.length === 0) {
      throw new WebhookVerificationError("input", 'secrets are needed for the "standard" scheme');
    }
    verifyStandard(secrets, text, options.headers);
  }
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch (err) {
    throw new WebhookVerificationError("input", "the body is not JSON", { cause: err });
  }
}

/** Checks X-Service-Signature (base64 DER ECDSA P-256/SHA-256) over body with a PEM SPKI key. */
export async function verifyEcdsa(signingKeyPem: string, rawBody: string | Uint8Array, signature: string): Promise<void> {
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : copy(rawBody);
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("spki", pemToDer(signingKeyPem), { name: "ECDSA", namedCurve: "P-256" }, false, [
      "verify",
    ]);
  } catch (err) {
    throw new WebhookVerificationError("ecdsa", `signingKeyPem is not a P-256 public key: ${message(err)}`, { cause: err });
  }
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = derToRaw(base64ToBytes(signature.trim()));
  } catch (err) {
    throw new WebhookVerificationError("ecdsa", `malformed X-Service-Signature: ${message(err)}`, { cause: err });
  }
  const ok = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, raw, body);
  if (!ok) throw new WebhookVerificationError("ecdsa", "X-Service-Signature does not verify over the body with signingKeyPem");
}

function verifyStandard(secrets: string[], text: string, headers: WebhookHeaders): void {
  const h: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const v = header(headers, name);
    if (!v) throw new WebhookVerificationError("standard", `missing ${name} header`);
    h[name] = v;
  }
  for (const secret of secrets) {
    let wh: Webhook;
    try {
      wh = new Webhook(secret);
    } catch (err) {
      throw new WebhookVerificationError("input", `a secret is not a Standard Webhooks secret: ${message(err)}`, { cause: err });
    }
    try {
      wh.verify(text, h);
      return;
    } catch (err) {
      if (err instanceof StandardError && err.message === "No matching signature found") continue;
      // The timestamp (too old, too new, unreadable) is the same for every secret.
      throw new WebhookVerificationError("standard", message(err), { cause: err });
    }
  }
  throw new WebhookVerificationError(
    "standard",
    `no v1 signature of webhook-signature matches ${secrets.length === 1 ? "the secret" : `any of the ${secrets.length} secrets`}`,
  );
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  for (const k of Object.keys(rec)) {
    if (k.toLowerCase() !== name) continue;
    const v = rec[k];
    return Array.isArray(v) ? v.join(", ") : v;
  }
  return undefined;
}

function pemToDer(pem: string): Uint8Array<ArrayBuffer> {
  const m = /-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/.exec(pem);
  if (!m?.[1]) throw new Error("no PUBLIC KEY PEM block");
  return base64ToBytes(m[1].replace(/\s+/g, ""));
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new Error("not base64");
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * An ASN.1 DER ECDSA-Sig-Value, SEQUENCE { r INTEGER, s INTEGER }, as WebCrypto's raw r‖s
 * (32 bytes each for P-256). Strict: anything but one minimal sequence of two positive
 * integers of at most 32 significant bytes is refused.
 */
function derToRaw(der: Uint8Array): Uint8Array<ArrayBuffer> {
  let i = 0;
  const byte = () => {
    const b = der[i++];
    if (b === undefined) throw new Error("truncated DER signature");
    return b;
  };
  if (byte() !== 0x30) throw new Error("DER signature is not a SEQUENCE");
  const seqLen = byte();
  if (seqLen & 0x80 || seqLen !== der.length - 2) throw new Error("bad DER SEQUENCE length");
  const out = new Uint8Array(64);
  for (const offset of [0, 32]) {
    if (byte() !== 0x02) throw new Error("DER signature member is not an INTEGER");
    const len = byte();
    if (len === 0 || len & 0x80 || i + len > der.length) throw new Error("bad DER INTEGER length");
    let v = der.subarray(i, i + len);
    i += len;
    if ((v[0] ?? 0) & 0x80) throw new Error("negative DER INTEGER");
    if (v[0] === 0 && v.length > 1) {
      if (!((v[1] ?? 0) & 0x80)) throw new Error("non-minimal DER INTEGER");
      v = v.subarray(1);
    }
    if (v.length > 32) throw new Error("DER INTEGER longer than 32 bytes");
    out.set(v, offset + 32 - v.length);
  }
  if (i !== der.length) throw new Error("trailing bytes after the DER signature");
  return out;
}

function copy(b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(b.length);
  out.set(b);
  return out;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
