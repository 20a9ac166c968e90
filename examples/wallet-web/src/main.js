// The wallet page: passkeys by the browser's WebAuthn, a session key made for a key pair
// generated here and decrypted here (@turnkey/crypto), every wallet action signed here with
// that key (@turnkey/api-key-stamper). The platform backend only relays; it never sees a key.
import { PaycoreError, SignedRetryError, signedRetry, unwrap } from "@paycore/client/browser";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from "@turnkey/crypto";

const $ = (id) => document.getElementById(id);
const WALLET = "paycore.wallet"; // localStorage: {customerId, accountId, externalAccountId, email, fullName, passkey}
const SESSION = "paycore.session"; // sessionStorage: {id, accountId, expiresAt, privateKey, publicKey}

let currentQuote = null;
let usdcDecimals = 6;

// ---- The backend's JSON API, answering like openapi-fetch ({data, error, response}) ----

async function call(method, path, body, headers = {}) {
  const response = await fetch(path, {
    method,
    headers: { ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = response.status === 204 ? "" : await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { status: response.status, code: `HTTP_${response.status}`, message: text.slice(0, 200) };
  }
  return response.ok ? { data: parsed, response } : { error: parsed, response };
}

// ---- State ----

const load = (store, key) => {
  try {
    return JSON.parse(store.getItem(key) || "null");
  } catch {
    return null;
  }
};
const wallet = () => load(localStorage, WALLET);
const session = () => load(sessionStorage, SESSION);
const saveWallet = (w) => localStorage.setItem(WALLET, JSON.stringify(w));

function setStatus(kind, text) {
  const el = $("status");
  el.dataset.kind = kind;
  el.textContent = text;
}

function show() {
  const w = wallet();
  const s = session();
  $("signup").hidden = Boolean(w);
  $("passkey").hidden = !w || Boolean(s);
  $("wallet").hidden = !s;
  $("register-button").hidden = Boolean(w?.passkey);
  $("who").textContent = w ? `${w.fullName} · ${w.email}` : "";
  if (s) $("session-info").textContent = `Signed in until ${new Date(s.expiresAt).toLocaleTimeString()}.`;
}

/** Runs a user action: buttons disabled meanwhile, every failure explained in #status. */
async function run(working, action) {
  const buttons = [...document.querySelectorAll("button")];
  buttons.forEach((b) => (b.disabled = true));
  setStatus("info", working);
  try {
    await action();
  } catch (err) {
    setStatus("error", await explain(err));
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    show();
  }
}

class SessionExpired extends Error {}

/** The session's signer; a session past its expiry is dropped with a clear message. */
function signer() {
  const s = session();
  if (!s) throw new SessionExpired("You are signed out: sign in with your passkey.");
  if (Date.parse(s.expiresAt) <= Date.now()) {
    sessionStorage.removeItem(SESSION);
    throw new SessionExpired(`Your session expired at ${new Date(s.expiresAt).toLocaleTimeString()}: sign in again with your passkey.`);
  }
  const stamper = new ApiKeyStamper({ apiPublicKey: s.publicKey, apiPrivateKey: s.privateKey });
  return async (payload) => (await stamper.stamp(payload)).stampHeaderValue;
}

/** A message for the user naming what went wrong, with the service's code and message. */
async function explain(err) {
  if (err instanceof SessionExpired) return err.message;
  if (err instanceof PaycoreError) {
    const detail = `[${err.code}: ${err.message}]`;
    if (err.status === 401 && err.reason === "Invalid Service-Wallet-Signature") {
      const s = session();
      if (s) {
        const st = await call("GET", `/api/session?accountId=${encodeURIComponent(s.accountId)}&sessionId=${encodeURIComponent(s.id)}`);
        if (st.response.ok && !st.data.active) {
          sessionStorage.removeItem(SESSION);
          return `Your session has expired or was ended: sign in again with your passkey. ${detail}`;
        }
      }
      return `The wallet refused this device's signature: it was not made by your current session's key. Nothing was sent. ${detail}`;
    }
    switch (err.code) {
      case "INSUFFICIENT_FUNDS":
        return `Not enough money in your wallet for this payment. ${detail}`;
      case "QUOTE_NOT_PENDING":
        return `This quote has expired or was already used: get a new quote. ${detail}`;
      case "UNAUTHORIZED":
        if (err.reason === "Invalid OTP code") return `That code is wrong or has expired: check your e-mail or send a new code. ${detail}`;
        return `Refused: ${err.reason || "not authorised"}. ${detail}`;
      case "RATE_LIMITED":
        return `Too many attempts: try again ${err.retryAfterMs ? `in ${Math.ceil(err.retryAfterMs / 1000)} s` : "later"}. ${detail}`;
      default:
        return `Refused: ${detail}`;
    }
  }
  if (err instanceof SignedRetryError) return `Signing on this device failed: ${err.message}`;
  if (err?.name === "NotAllowedError") return "The passkey prompt was cancelled or timed out; nothing was done.";
  if (err?.name === "InvalidStateError") return "This device already has a passkey for this wallet.";
  if (err instanceof TypeError && /fetch/i.test(err.message)) return "The platform's server did not answer: check your connection.";
  return `Something went wrong: ${err?.message || err}`;
}

// ---- Encodings ----

const b64u = (buf) =>
  btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const fromB64u = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const hexToText = (hex) => new TextDecoder().decode(Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16)));

function formatAmount(a) {
  if (!a) return "";
  const d = a.currency.decimals;
  const neg = a.amount < 0;
  const s = String(Math.abs(a.amount)).padStart(d + 1, "0");
  return `${neg ? "-" : ""}${d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s} ${a.currency.code}`;
}

function parseAmount(text, decimals) {
  const m = /^\s*(\d+)(?:[.,](\d*))?\s*$/.exec(text);
  if (!m || (m[2] || "").length > decimals) throw new Error(`enter an amount such as 10.00 (at most ${decimals} decimals)`);
  return Number(m[1]) * 10 ** decimals + Number((m[2] || "").padEnd(decimals, "0") || 0);
}

// ---- Actions ----

async function signUp(event) {
  event.preventDefault();
  await run("Creating your wallet and verifying you (a few seconds in the sandbox)…", async () => {
    const w = unwrap(await call("POST", "/api/signup", { fullName: $("signup-name").value, email: $("signup-email").value }));
    saveWallet({ ...w, passkey: false });
    setStatus("ok", "Your wallet is ready. Register a passkey on this device to use it.");
  });
}

async function registerPasskey() {
  await run("Registering a passkey: follow your device's prompt…", async () => {
    const w = wallet();
    const o = unwrap(await call("POST", "/api/passkeys/options", { accountId: w.accountId, name: w.email }));
    const cred = await navigator.credentials.create({
      publicKey: {
        challenge: fromB64u(o.challenge),
        rp: o.rp,
        user: { ...o.user, id: fromB64u(o.user.id) },
        pubKeyCredParams: o.pubKeyCredParams,
        attestation: "none",
        authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
        timeout: 60_000,
      },
    });
    unwrap(
      await call("POST", "/api/passkeys", {
        accountId: w.accountId,
        nickname: "This device",
        attestation: {
          credentialId: b64u(cred.rawId),
          clientDataJson: b64u(cred.response.clientDataJSON),
          attestationObject: b64u(cred.response.attestationObject),
          transports: cred.response.getTransports ? cred.response.getTransports() : [],
        },
      }),
    );
    saveWallet({ ...w, passkey: true });
    setStatus("ok", "Passkey registered. Sign in with it.");
  });
}

async function signIn() {
  await run("Signing in: confirm with your passkey…", async () => {
    const w = wallet();
    // A fresh key pair: the service seals the session key to its public half.
    const kp = generateP256KeyPair();
    const ch = unwrap(await call("POST", "/api/sign-in/challenge", { accountId: w.accountId, clientPublicKey: kp.publicKeyUncompressed }));
    const a = await navigator.credentials.get({
      publicKey: {
        challenge: fromB64u(ch.challenge),
        rpId: ch.rpId,
        allowCredentials: [{ type: "public-key", id: fromB64u(ch.credentialId) }],
        userVerification: "required",
        timeout: 60_000,
      },
    });
    const s = unwrap(
      await call("POST", "/api/sign-in/verify", {
        authMethodId: ch.authMethodId,
        requestId: ch.requestId,
        assertion: {
          credentialId: b64u(a.rawId),
          clientDataJson: b64u(a.response.clientDataJSON),
          authenticatorData: b64u(a.response.authenticatorData),
          signature: b64u(a.response.signature),
          ...(a.response.userHandle ? { userHandle: b64u(a.response.userHandle) } : {}),
        },
      }),
    );
    if (!w.passkey) saveWallet({ ...w, passkey: true });
    await startSession(s, kp);
  });
}

/** Opens a session's signing key, sealed to the page's key pair kp, and shows the wallet. */
async function startSession(s, kp) {
  const w = wallet();
  const privateKey = decryptCredentialBundle(s.encryptedSessionSigningKey, kp.privateKey);
  const publicKey = toHex(getPublicKey(privateKey, true));
  sessionStorage.setItem(SESSION, JSON.stringify({ id: s.id, accountId: w.accountId, expiresAt: s.expiresAt, privateKey, publicKey }));
  show();
  await refresh();
  setStatus("ok", `Signed in (${s.type === "PASSKEY" ? "passkey" : "e-mail code"}).`);
}

async function sendCode() {
  await run("Sending a code…", async () => {
    const r = unwrap(await call("POST", "/api/sign-in/email/challenge", { accountId: wallet().accountId }));
    setStatus("ok", `A new code was sent to ${r.to}.`);
  });
}

async function signInWithCode(event) {
  event.preventDefault();
  await run("Checking the code…", async () => {
    const kp = generateP256KeyPair();
    const s = unwrap(
      await call("POST", "/api/sign-in/email/verify", { accountId: wallet().accountId, otp: $("otp-code").value.trim(), clientPublicKey: kp.publicKeyUncompressed }),
    );
    $("otp-code").value = "";
    await startSession(s, kp);
  });
}

async function refresh() {
  const w = wallet();
  const d = unwrap(await call("GET", `/api/wallet?customerId=${encodeURIComponent(w.customerId)}`));
  const list = $("balances");
  list.replaceChildren(
    ...d.accounts.map((a) => {
      const li = document.createElement("li");
      li.dataset.accountId = a.id;
      li.textContent = formatAmount(a.balance);
      return li;
    }),
  );
  const usdc = d.accounts.find((a) => a.id === w.accountId);
  if (usdc) usdcDecimals = usdc.balance.currency.decimals;
  const rows = $("transactions");
  rows.replaceChildren(
    ...d.transactions.map((t) => {
      const tr = document.createElement("tr");
      tr.dataset.transactionId = t.id;
      tr.dataset.status = t.status;
      for (const v of [new Date(t.createdAt).toLocaleString(), t.status, formatAmount(t.sentAmount), formatAmount(t.receivedAmount)]) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.append(td);
      }
      return tr;
    }),
  );
}

async function getQuote(event) {
  event.preventDefault();
  await run("Getting a quote…", async () => {
    const w = wallet();
    const amount = parseAmount($("send-amount").value, usdcDecimals);
    const q = unwrap(await call("POST", "/api/quotes", { accountId: w.accountId, externalAccountId: w.externalAccountId, amount }));
    currentQuote = q;
    $("quote").hidden = false;
    $("quote").dataset.quoteId = q.id;
    $("quote-text").textContent =
      `You send ${formatAmount({ amount: q.totalSendingAmount, currency: q.sendingCurrency })}, ` +
      `${q.counterpartyInformation?.fullName || "the recipient"} gets ${formatAmount({ amount: q.totalReceivingAmount, currency: q.receivingCurrency })} ` +
      `(rate ${q.exchangeRate}). Valid until ${new Date(q.expiresAt).toLocaleTimeString()}.`;
    setStatus("info", "Check the quote, then sign and pay.");
  });
}

async function pay() {
  await run("Signing the payment on this device…", async () => {
    const q = currentQuote;
    if (!q) throw new Error("get a quote first");
    const payload = q.paymentInstructions?.[0]?.accountOrWalletInfo?.payloadToSign;
    if (typeof payload !== "string") throw new Error("the quote carries no payload to sign (is the source an embedded wallet?)");
    const sign = signer();
    let stamp;
    try {
      stamp = await sign(payload);
    } catch (err) {
      throw new SignedRetryError(`the session key could not sign: ${err?.message || err}`, { cause: err });
    }
    const done = unwrap(await call("POST", "/api/quotes/execute", { quoteId: q.id, stamp }));
    currentQuote = null;
    $("quote").hidden = true;
    await refresh();
    setStatus("ok", `Payment sent: ${formatAmount({ amount: done.totalReceivingAmount, currency: done.receivingCurrency })} on its way (${done.transactionId}).`);
  });
}

async function addEmailOTP() {
  await run("Adding e-mail codes: signing on this device…", async () => {
    const w = wallet();
    const sign = signer();
    await signedRetry((headers) => call("POST", "/api/credentials/email", { accountId: w.accountId, email: w.email }, headers), sign);
    setStatus("ok", `E-mail codes added: you can sign in with a code sent to ${w.email}.`);
  });
}

async function exportWallet() {
  await run("Exporting: signing on this device…", async () => {
    const w = wallet();
    const sign = signer();
    // The phrase is sealed to a key pair made for this export only.
    const kp = generateP256KeyPair();
    const { data } = await signedRetry(
      (headers) => call("POST", "/api/export", { accountId: w.accountId, clientPublicKey: kp.publicKeyUncompressed }, headers),
      sign,
    );
    const words = hexToText(decryptCredentialBundle(data.encryptedWalletCredentials, kp.privateKey));
    $("mnemonic").hidden = false;
    $("mnemonic").textContent = words;
    setStatus("ok", `Your recovery phrase (${words.split(/\s+/).length} words) is shown below: write it down, never share it.`);
  });
}

async function signOut() {
  await run("Signing out…", async () => {
    const s = session();
    try {
      if (s && Date.parse(s.expiresAt) > Date.now()) {
        await signedRetry((headers) => call("DELETE", `/api/session?sessionId=${encodeURIComponent(s.id)}`, undefined, headers), signer());
      }
    } finally {
      sessionStorage.removeItem(SESSION);
      $("mnemonic").hidden = true;
      $("mnemonic").textContent = "";
    }
    setStatus("ok", "Signed out.");
  });
}

function forget() {
  localStorage.removeItem(WALLET);
  sessionStorage.removeItem(SESSION);
  show();
  setStatus("info", "Create a wallet.");
}

$("signup-form").addEventListener("submit", signUp);
$("register-button").addEventListener("click", registerPasskey);
$("signin-button").addEventListener("click", signIn);
$("forget-button").addEventListener("click", forget);
$("otp-form").addEventListener("submit", signInWithCode);
$("otp-send-button").addEventListener("click", sendCode);
$("send-form").addEventListener("submit", getQuote);
$("pay-button").addEventListener("click", pay);
$("refresh-button").addEventListener("click", () => run("Refreshing…", async () => (await refresh(), setStatus("ok", "Up to date."))));
$("otp-button").addEventListener("click", addEmailOTP);
$("export-button").addEventListener("click", exportWallet);
$("signout-button").addEventListener("click", signOut);

show();
if (session()) {
  run("Loading your wallet…", async () => {
    await refresh();
    setStatus("ok", "Signed in.");
  });
} else {
  setStatus("info", wallet() ? (wallet().passkey ? "Sign in with your passkey." : "Register a passkey on this device.") : "Create a wallet.");
}
document.body.dataset.ready = "true";
