// Package client holds the Go side of the TypeScript client's tests: the client itself is the
// npm package in this directory (package.json, src/), generated from api/openapi.yaml. Its test
// signs webhooks with internal/webhooksig, runs `npm test` (tsc and node --test) against them,
// and verifies the wallet stamps the Node tests made with @turnkey/api-key-stamper.
package client
