// Reads one JSON request per line on stdin and answers one JSON line on stdout, signing a
// wallet-ownership message with the libraries self-custody wallets use. Each op makes a
// random key unless "privateKey" (hex for secp256k1, hex 32-byte seed for ed25519) is given,
// and answers {"address": "...", "signature": "..."}; a refusal is {"error": "..."}.
//   {"op":"evm","message":"..."}      ethers v6 Wallet.signMessage (EIP-191 personal_sign)
//   {"op":"tron","message":"..."}     TronWeb trx.signMessageV2 (TIP-191), base58 address
//   {"op":"solana","message":"..."}   tweetnacl sign.detached, bs58 address and signature
//   {"op":"spark","message":"...","mode":"compressed|uncompressed|p2wpkh|p2sh-p2wpkh|electrum"}
//       bitcoinjs-message sign, base64; the address is the Spark address of the key, encoded
//       as @buildonspark/spark-sdk's encodeSparkAddress does (bech32m "spark" of the
//       protobuf SparkAddress{identity_public_key = 1}), here with @scure/base since the SDK
//       itself installs ~300 MB. The answer also has "verified": bitcoinjs-message's own
//       verify of the signature against the key's Bitcoin address.
import { createInterface } from "node:readline";
import crypto from "node:crypto";
import { Wallet } from "ethers";
import { TronWeb, utils as tronUtils } from "tronweb";
import nacl from "tweetnacl";
import bs58 from "bs58";
import bitcoinMessage from "bitcoinjs-message";
import { bech32, bech32m } from "@scure/base";

function secpKey(hex) {
  const ecdh = crypto.createECDH("secp256k1");
  if (hex) ecdh.setPrivateKey(Buffer.from(hex.replace(/^0x/, ""), "hex"));
  else ecdh.generateKeys();
  const p = ecdh.getPrivateKey(); // without leading zero bytes
  const priv = Buffer.concat([Buffer.alloc(32 - p.length), p]);
  return { priv, pub: ecdh.getPublicKey(null, "compressed"), pubU: ecdh.getPublicKey() };
}

function hash160(b) {
  return crypto.createHash("ripemd160").update(crypto.createHash("sha256").update(b).digest()).digest();
}

function base58check(payload) {
  const sum = crypto.createHash("sha256").update(crypto.createHash("sha256").update(payload).digest()).digest();
  return bs58.encode(Buffer.concat([payload, sum.subarray(0, 4)]));
}

// Bitcoin mainnet address of the key for the signature's header, for bitcoinjs-message verify.
function bitcoinAddress(k, mode) {
  switch (mode) {
    case "uncompressed":
      return base58check(Buffer.concat([Buffer.from([0]), hash160(k.pubU)]));
    case "p2sh-p2wpkh":
      return base58check(Buffer.concat([Buffer.from([5]), hash160(Buffer.concat([Buffer.from([0, 20]), hash160(k.pub)]))]));
    case "p2wpkh":
    case "electrum":
      return bech32.encode("bc", [0, ...bech32.toWords(hash160(k.pub))]);
    default:
      return base58check(Buffer.concat([Buffer.from([0]), hash160(k.pub)]));
  }
}

// encodeSparkAddress of @buildonspark/spark-sdk: BinaryWriter().uint32(10).bytes(key), bech32m with limit 1024.
function sparkAddress(pub, prefix) {
  const payload = Buffer.concat([Buffer.from([0x0a, pub.length]), pub]);
  return bech32m.encode(prefix || "spark", bech32m.toWords(payload), 1024);
}

async function handle(req) {
  const message = req.message;
  if (typeof message !== "string") throw new Error("message must be a string");
  switch (req.op) {
    case "evm": {
      const wallet = req.privateKey ? new Wallet(req.privateKey) : Wallet.createRandom();
      return { address: wallet.address, signature: await wallet.signMessage(message) };
    }
    case "tron": {
      const privateKey = req.privateKey ? req.privateKey.replace(/^0x/, "") : tronUtils.accounts.generateAccount().privateKey;
      // No node is contacted: the host is only needed to construct TronWeb.
      const tronWeb = new TronWeb({ fullHost: "http://127.0.0.1:9", privateKey });
      const signature = await tronWeb.trx.signMessageV2(message, privateKey);
      const address = TronWeb.address.fromPrivateKey(privateKey);
      if ((await tronWeb.trx.verifyMessageV2(message, signature)) !== address) throw new Error("TronWeb does not verify its own signature");
      return { address, signature };
    }
    case "solana": {
      const kp = req.privateKey ? nacl.sign.keyPair.fromSeed(Buffer.from(req.privateKey, "hex")) : nacl.sign.keyPair();
      const sig = nacl.sign.detached(new TextEncoder().encode(message), kp.secretKey);
      return { address: bs58.encode(kp.publicKey), signature: bs58.encode(sig) };
    }
    case "spark": {
      const k = secpKey(req.privateKey);
      const mode = req.mode || "compressed";
      let sig;
      switch (mode) {
        case "compressed":
          sig = bitcoinMessage.sign(message, k.priv, true);
          break;
        case "uncompressed":
          sig = bitcoinMessage.sign(message, k.priv, false);
          break;
        case "p2wpkh":
          sig = bitcoinMessage.sign(message, k.priv, true, { segwitType: "p2wpkh" });
          break;
        case "p2sh-p2wpkh":
          sig = bitcoinMessage.sign(message, k.priv, true, { segwitType: "p2sh(p2wpkh)" });
          break;
        case "electrum":
          // Electrum signs segwit keys with the plain compressed header (27+4+recid).
          sig = bitcoinMessage.sign(message, k.priv, true);
          break;
        default:
          throw new Error("unknown mode " + mode);
      }
      const verified = bitcoinMessage.verify(message, bitcoinAddress(k, mode), sig, null, mode === "electrum");
      return { address: sparkAddress(k.pub, req.prefix), signature: sig.toString("base64"), verified };
    }
    default:
      throw new Error("unknown op " + req.op);
  }
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  try {
    console.log(JSON.stringify(await handle(JSON.parse(line))));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  }
}
