import createClient, { defaultPathSerializer, type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema.js";

/** The typed client: `GET`, `POST`, `PATCH`, `DELETE`, ... over the paths of api/openapi.yaml. */
export type PaycoreClient = Client<paths>;

/** Options of createPaycoreClient. */
export interface PaycoreClientOptions {
  /** The versioned base URL, e.g. `https://pay.example.com/api/2025-10-13`. */
  baseUrl: string;
  /** The API token's `clientId` (its UUID; `Token:<uuid>` works too). */
  tokenId: string;
  /** The API token's `clientSecret`. */
  secret: string;
  /** A fetch to use instead of globalThis.fetch (a test double, a proxying fetch, ...). */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * A typed client for the platform API, authenticated with HTTP Basic (the token id and
 * secret). It runs in Node 20+ and in browsers: it needs only fetch, Request and btoa.
 */
export function createPaycoreClient(options: PaycoreClientOptions): PaycoreClient {
  const { baseUrl, tokenId, secret } = options;
  if (!baseUrl) throw new TypeError("createPaycoreClient: baseUrl is required");
  if (!tokenId || !secret) throw new TypeError("createPaycoreClient: tokenId and secret are required");
  const client = createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    pathSerializer: keepColons,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(basicAuth(tokenId, secret));
  return client;
}

/**
 * The default path serializer but for `:`, which stays as it is: ids such as
 * `InternalAccount:<uuid>` go into paths as the service writes them (a `:` is valid in a
 * path segment, RFC 3986), readable in logs; the service takes `%3A` too.
 */
function keepColons(pathname: string, pathParams: Record<string, unknown>): string {
  return defaultPathSerializer(pathname, pathParams).replace(/%3A/gi, ":");
}

/** Middleware that sets `Authorization: Basic base64(tokenId:secret)` on every request. */
export function basicAuth(tokenId: string, secret: string): Middleware {
  const value = `Basic ${btoa(`${tokenId}:${secret}`)}`;
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", value);
      return request;
    },
  };
}
