package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"paycore/internal/infra/config"
	"paycore/internal/infra/webhookforward"
	"paycore/internal/webhooksig"
)

const listenUsage = `usage: paycore listen -forward-to URL [-api BASE_URL] [-after Webhook:<uuid>] [-platform-secret]

Streams the platform's webhook events from the service and POSTs each to URL, signed with a
local Standard Webhooks secret (printed at start; PAYCORE_LISTEN_SECRET=whsec_... keeps one
across runs), or with the platform's own (-platform-secret), and with the service's
X-Service-Signature. The platform's API token is
PAYCORE_TOKEN_ID and PAYCORE_TOKEN_SECRET, or the sandbox platform ` + "`make run`" + ` wrote to
the data folder (.data/sandbox-platform.json).`

// listen is `paycore listen`: the platform's webhook events, forwarded to a local URL. It
// reads its environment variables through getenv (os.Getenv).
func listen(ctx context.Context, cfg config.Config, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	forwardTo := fs.String("forward-to", "", "the local URL each event is POSTed to")
	base := fs.String("api", cmp.Or(getenv("PAYCORE_BASE_URL"), "http://"+cfg.HTTPAddr+cfg.BasePath()), "the API's base URL, with its version")
	after := fs.String("after", "", "start after this event (Webhook:<uuid>); from now when empty")
	platformSecret := fs.Bool("platform-secret", false, "sign with the platform's own webhook secret (GET /webhooks/secret; needs MANAGE) instead of a local one")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return fmt.Errorf("%s", listenUsage)
	}
	if err := checkForwardURL(*forwardTo); err != nil {
		return fmt.Errorf("-forward-to: %w\n%s", err, listenUsage)
	}
	tokenID, tokenSecret, err := listenToken(getenv, cfg.DataDir)
	if err != nil {
		return err
	}
	var secret []byte
	var printable string
	if *platformSecret {
		secret, err = platformWebhookSecret(ctx, *base, tokenID, tokenSecret)
		printable = "the platform's webhook secret"
	} else {
		secret, printable, err = listenSecret(getenv)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Forwarding the platform's webhook events from %s to %s\n", *base, *forwardTo)
	fmt.Fprintf(stdout, "Signing them with %s (webhook-signature); X-Service-Signature is the service's own\n", printable)
	f := &webhookforward.Forwarder{BaseURL: *base, TokenID: tokenID, TokenSecret: tokenSecret, ForwardTo: *forwardTo,
		Secret: secret, After: *after, Out: stdout}
	return f.Run(ctx)
}

// checkForwardURL accepts an absolute http(s) URL.
func checkForwardURL(s string) error {
	if s == "" {
		return errors.New("required")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}

// listenToken is the platform's API token: PAYCORE_TOKEN_ID and PAYCORE_TOKEN_SECRET, else
// the sandbox platform's credentials `paycore dev` keeps in the data folder.
func listenToken(getenv func(string) string, dataDir string) (id, secret string, err error) {
	id, secret = getenv("PAYCORE_TOKEN_ID"), getenv("PAYCORE_TOKEN_SECRET")
	if id != "" && secret != "" {
		return id, secret, nil
	}
	path := devCredentialsPath(dataDir)
	creds, err := readDevCredentials(dataDir)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("no API token: set PAYCORE_TOKEN_ID and PAYCORE_TOKEN_SECRET (or run `make run`, which writes %s)", path)
	}
	if err != nil || creds.ClientID == "" || creds.ClientSecret == "" {
		return "", "", fmt.Errorf("%s holds no API token", path)
	}
	return creds.ClientID, creds.ClientSecret, nil
}

// platformWebhookSecret reads the platform's current Standard Webhooks secret, so that
// forwarded events verify as delivered ones do.
func platformWebhookSecret(ctx context.Context, base, tokenID, tokenSecret string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/webhooks/secret", nil)
	if err != nil {
		return nil, fmt.Errorf("-platform-secret: %w", err)
	}
	req.SetBasicAuth(tokenID, tokenSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("-platform-secret: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var s struct {
		Secret string `json:"secret"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &s) != nil {
		return nil, fmt.Errorf("-platform-secret: GET /webhooks/secret answered %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	raw, err := webhooksig.ParseSecret(s.Secret)
	if err != nil {
		return nil, fmt.Errorf("-platform-secret: %w", err)
	}
	return raw, nil
}

// listenSecret is the secret forwarded events are signed with: PAYCORE_LISTEN_SECRET, else
// a new one.
func listenSecret(getenv func(string) string) (raw []byte, printable string, err error) {
	if s := strings.TrimSpace(getenv("PAYCORE_LISTEN_SECRET")); s != "" {
		raw, err := webhooksig.ParseSecret(s)
		if err != nil {
			return nil, "", fmt.Errorf("PAYCORE_LISTEN_SECRET: %w", err)
		}
		return raw, s, nil
	}
	raw, printable = webhooksig.NewSecret()
	return raw, printable, nil
}
