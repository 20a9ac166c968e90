// Type-checked (tsc --noEmit, in `npm test`), never run: the generated types must describe
// the API as an integrator uses it, so a wrong or missing type in src/schema.ts fails here.
import {
  createPaycoreClient,
  signedRetry,
  withIdempotency,
  unwrap,
  verifyWebhook,
  PaycoreError,
  type components,
} from "../src/index.js";

type Quote = components["schemas"]["Quote"];

export async function createAndExecuteQuote(sign: (payload: string) => Promise<string>): Promise<Quote> {
  const api = createPaycoreClient({ baseUrl: "https://pay.example.com/api/2025-10-13", tokenId: "id", secret: "secret" });

  const created = await withIdempotency((headers) =>
    api.POST("/quotes", {
      body: {
        source: { sourceType: "ACCOUNT", accountId: "InternalAccount:1" },
        destination: { destinationType: "ACCOUNT", accountId: "ExternalAccount:2", currency: "EUR" },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 1000,
      },
      headers,
    }),
  );
  const quote: Quote = unwrap(created);
  const fee: number = quote.feesIncluded;
  void fee;
  const sending: string = quote.sendingCurrency.code;
  void sending;

  // @ts-expect-error lockedCurrencySide is an enum
  await api.POST("/quotes", { body: { ...quoteBody(), lockedCurrencySide: "BOTH" } });
  // @ts-expect-error the body's required members are required
  await api.POST("/quotes", { body: { lockedCurrencyAmount: 1 } });
  // @ts-expect-error no such path
  await api.GET("/no-such-path");

  const executed = await signedRetry(
    (headers) => api.POST("/quotes/{quoteId}/execute", { params: { path: { quoteId: quote.id } }, headers }),
    sign,
  );
  const status: Quote["status"] = unwrap(executed).status;
  void status;
  return unwrap(executed);
}

export async function exportWallet(sign: (payload: string) => Promise<string>): Promise<string> {
  const api = createPaycoreClient({ baseUrl: "http://127.0.0.1:8080/api/2025-10-13", tokenId: "id", secret: "secret" });
  const exported = await withIdempotency((idem) =>
    signedRetry(
      (sig) =>
        api.POST("/internal-accounts/{id}/export", {
          params: { path: { id: "InternalAccount:1" } },
          body: { clientPublicKey: "04ab" },
          headers: { ...idem, ...sig },
        }),
      sign,
    ),
  );
  return exported.data.encryptedWalletCredentials;
}

function quoteBody() {
  return {
    source: { sourceType: "ACCOUNT" as const, accountId: "InternalAccount:1" },
    destination: { destinationType: "ACCOUNT" as const, accountId: "ExternalAccount:2" },
    lockedCurrencySide: "SENDING" as const,
    lockedCurrencyAmount: 1000,
  };
}

export async function onWebhook(rawBody: string, headers: Headers, signingKeyPem: string, secret: string): Promise<string> {
  const event = await verifyWebhook({ rawBody, headers, signingKeyPem, secrets: [secret] });
  // @ts-expect-error not a webhook type
  if (event.type === "NOT_A_TYPE") return "";
  if (event.type === "OUTGOING_PAYMENT_FAILED") {
    const tx: components["schemas"]["OutgoingTransaction"] = event.data; // narrowed by type
    return tx.id;
  }
  if (event.type === "TEST") {
    const data: Record<string, unknown> = event.data;
    void data;
  }
  return `${event.id} ${event.type}`;
}

export function describe(err: unknown): string {
  return err instanceof PaycoreError ? `${err.status} ${err.code} ${err.reason ?? ""}` : String(err);
}
