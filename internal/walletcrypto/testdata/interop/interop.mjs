// Reads one JSON request per line on stdin and answers one JSON line on stdout, using the
// client libraries a platform would use:
//   {"op":"decrypt","bundle":"...","privateKey":"<hex>"}            -> {"secret":"<hex>"}
//   {"op":"stamp","payload":"...","publicKey":"<hex>","privateKey":"<hex>"} -> {"stamp":"..."}
//   {"op":"encryptOtp","code":"...","bundle":"<target bundle>","publicKey":"<hex>","signer":"<hex>"} -> {"encrypted":"..."}
import { createInterface } from "node:readline";
import { decryptCredentialBundle, encryptOtpCodeToBundle, getPublicKey } from "@turnkey/crypto";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  try {
    if (req.op === "decrypt") {
      const secret = decryptCredentialBundle(req.bundle, req.privateKey);
      console.log(JSON.stringify({ secret }));
    } else if (req.op === "stamp") {
      const publicKey = req.publicKey || Buffer.from(getPublicKey(req.privateKey, true)).toString("hex");
      const stamper = new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: req.privateKey });
      const { stampHeaderValue } = await stamper.stamp(req.payload);
      console.log(JSON.stringify({ stamp: stampHeaderValue }));
    } else if (req.op === "encryptOtp") {
      const encrypted = await encryptOtpCodeToBundle(req.code, req.bundle, req.publicKey, req.signer);
      console.log(JSON.stringify({ encrypted }));
    } else {
      console.log(JSON.stringify({ error: "unknown op " + req.op }));
    }
  } catch (e) {
    console.log(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  }
}
