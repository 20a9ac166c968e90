// Reads one JSON request per line on stdin and answers one JSON line on stdout, doing what
// a provider built on the official UMA JavaScript SDK does (@uma-sdk/core):
//   {"op":"keys","pubKeys":"<lnurlpubkey JSON>"}                       -> {"signing":"<hex>","encryption":"<hex>"}
//   {"op":"lnurlpRequest","privateKey":"<hex>","receiver":"$bob@host","sender":"host"} -> {"url":"..."}
//   {"op":"verifyLnurlpRequest","url":"...","pubKeys":"<JSON>"}        -> {"receiver":"...","valid":bool}
//   {"op":"lnurlpResponse","url":"...","privateKey":"<hex>","callback":"...","metadata":"..."} -> {"json":"..."}
//   {"op":"verifyLnurlpResponse","json":"...","pubKeys":"<JSON>"}      -> {"valid":bool}
//   {"op":"payRequest","privateKey":"<hex>","receiverKeys":"<JSON>","amount":n,"inReceiving":bool,"currency":"MXN","payer":"$alice@host","trInfo":"...","utxoCallback":"<URL, optional>"} -> {"json":"..."}
//   {"op":"verifyPayRequest","json":"...","pubKeys":"<JSON>","privateKey":"<hex>"} -> {"valid":bool,"amount":n,"currency":"...","trInfo":"..."}
//   {"op":"payReqResponse","request":"<JSON>","privateKey":"<hex>","invoice":"...","payee":"$bob@host"} -> {"json":"...","msats":n}
//   {"op":"verifyPayReqResponse","json":"...","payer":"...","payee":"...","pubKeys":"<JSON>"} -> {"valid":bool}
//   {"op":"postTxCallback","privateKey":"<hex>","domain":"host"}     -> {"json":"..."}
//   {"op":"verifyPostTxCallback","json":"...","pubKeys":"<JSON>"}     -> {"valid":bool}
//   {"op":"encrypt","publicKey":"<hex>","plaintext":"..."}             -> {"payload":"<hex>"}
//   {"op":"decrypt","privateKey":"<hex>","payload":"<hex>"}            -> {"plaintext":"..."}
import { createInterface } from "node:readline";
import {
  Currency,
  InMemoryNonceValidator,
  KycStatus,
  LnurlpResponse,
  PayReqResponse,
  PayRequest,
  PubKeyResponse,
  getLnurlpResponse,
  getPayReqResponse,
  getPayRequest,
  getPostTransactionCallback,
  getSignedLnurlpRequestUrl,
  parseLnurlpRequest,
  parsePostTransactionCallback,
  verifyPayReqResponseSignature,
  verifyPayReqSignature,
  verifyPostTransactionCallbackSignature,
  verifyUmaLnurlpQuerySignature,
  verifyUmaLnurlpResponseSignature,
} from "@uma-sdk/core";
import { decrypt, encrypt } from "eciesjs";

const hex = (s) => Buffer.from(s, "hex");
// Each verification has its own nonce cache, accepting the last hour.
const nonces = () => new InMemoryNonceValidator(Date.now() - 3600 * 1000);

const ops = {
  keys: ({ pubKeys }) => {
    const r = PubKeyResponse.fromJson(pubKeys);
    return {
      signing: Buffer.from(r.getSigningPubKey()).toString("hex"),
      encryption: Buffer.from(r.getEncryptionPubKey()).toString("hex"),
    };
  },
  lnurlpRequest: async ({ privateKey, receiver, sender }) => {
    const url = await getSignedLnurlpRequestUrl({
      signingPrivateKey: hex(privateKey),
      receiverAddress: receiver,
      senderVaspDomain: sender,
      isSubjectToTravelRule: true,
    });
    return { url: url.toString() };
  },
  verifyLnurlpRequest: async ({ url, pubKeys }) => {
    const q = parseLnurlpRequest(new URL(url));
    const valid = await verifyUmaLnurlpQuerySignature(q, PubKeyResponse.fromJson(pubKeys), nonces());
    return { receiver: q.receiverAddress, valid };
  },
  lnurlpResponse: async ({ url, privateKey, callback, metadata }) => {
    const r = await getLnurlpResponse({
      request: parseLnurlpRequest(new URL(url)),
      privateKeyBytes: hex(privateKey),
      requiresTravelRuleInfo: true,
      callback,
      encodedMetadata: metadata,
      minSendableSats: 1,
      maxSendableSats: 10_000_000,
      payerDataOptions: { identifier: { mandatory: true }, name: { mandatory: false }, compliance: { mandatory: true } },
      currencyOptions: [new Currency("MXN", "Mexican Pesos", "$", 56.5, 100, 1_000_000, 2)],
      receiverKycStatus: KycStatus.Verified,
    });
    return { json: r.toJsonString() };
  },
  verifyLnurlpResponse: async ({ json, pubKeys }) => {
    const valid = await verifyUmaLnurlpResponseSignature(LnurlpResponse.fromJson(json), PubKeyResponse.fromJson(pubKeys), nonces());
    return { valid };
  },
  payRequest: async ({ privateKey, receiverKeys, amount, inReceiving, currency, payer, trInfo, utxoCallback }) => {
    const r = await getPayRequest({
      receiverEncryptionPubKey: PubKeyResponse.fromJson(receiverKeys).getEncryptionPubKey(),
      sendingVaspPrivateKey: hex(privateKey),
      receivingCurrencyCode: currency,
      amount,
      isAmountInReceivingCurrency: inReceiving,
      payerIdentifier: payer,
      payerName: "Alice Sender",
      trInfo,
      payerKycStatus: KycStatus.Verified,
      utxoCallback: utxoCallback || "https://vasp1.example/api/uma/utxoCallback",
      requestedPayeeData: { identifier: { mandatory: true }, compliance: { mandatory: true } },
      umaMajorVersion: 1,
    });
    return { json: r.toJsonString() };
  },
  verifyPayRequest: async ({ json, pubKeys, privateKey }) => {
    const r = PayRequest.fromJson(json);
    const valid = await verifyPayReqSignature(r, PubKeyResponse.fromJson(pubKeys), nonces());
    const enc = r.payerData?.compliance?.encryptedTravelRuleInfo;
    const trInfo = enc ? Buffer.from(decrypt(privateKey, hex(enc))).toString() : "";
    return { valid, amount: r.amount, currency: r.sendingAmountCurrencyCode ?? "", convert: r.receivingCurrencyCode, trInfo };
  },
  payReqResponse: async ({ request, privateKey, invoice, payee }) => {
    let msats = 0;
    const r = await getPayReqResponse({
      request: PayRequest.fromJson(request),
      metadata: `[["text/plain","Pay ${payee}"]]`,
      invoiceCreator: { createUmaInvoice: async (amountMsats) => { msats = amountMsats; return invoice; } },
      conversionRate: 56.5,
      receivingCurrencyCode: "MXN",
      receivingCurrencyDecimals: 2,
      receiverChannelUtxos: [],
      receiverFeesMillisats: 2000,
      utxoCallback: "https://vasp2.example/api/uma/utxoCallback",
      payeeData: { identifier: payee, name: "Bob Receiver" },
      receivingVaspPrivateKey: hex(privateKey),
      payeeIdentifier: payee,
    });
    return { json: r.toJsonString(), msats };
  },
  verifyPayReqResponse: async ({ json, payer, payee, pubKeys }) => {
    const valid = await verifyPayReqResponseSignature(PayReqResponse.fromJson(json), payer, payee, PubKeyResponse.fromJson(pubKeys), nonces());
    return { valid };
  },
  postTxCallback: async ({ privateKey, domain }) => {
    const c = await getPostTransactionCallback({ utxos: [{ utxo: "abcd:0", amountMsats: 1000 }], vaspDomain: domain, signingPrivateKey: hex(privateKey) });
    return { json: JSON.stringify(c) };
  },
  verifyPostTxCallback: async ({ json, pubKeys }) => {
    const valid = await verifyPostTransactionCallbackSignature(parsePostTransactionCallback(json), PubKeyResponse.fromJson(pubKeys), nonces());
    return { valid };
  },
  encrypt: ({ publicKey, plaintext }) => ({ payload: Buffer.from(encrypt(publicKey, Buffer.from(plaintext))).toString("hex") }),
  decrypt: ({ privateKey, payload }) => ({ plaintext: Buffer.from(decrypt(privateKey, hex(payload))).toString() }),
};

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  try {
    const op = ops[req.op];
    if (!op) throw new Error("unknown op " + req.op);
    console.log(JSON.stringify(await op(req)));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  }
}
