// Command go-platform is a platform's first steps with the Go SDK (paycore/sdk/go), run
// against a paycore API:
//
//  1. read the platform's configuration;
//  2. create a customer that may move money: attested on a regulated platform, verified by
//     the service (details, an identity document, POST /verifications) on any other, such as
//     the sandbox platform `make run` creates;
//  3. fund the customer's USD account in the sandbox and register the customer's bank account;
//  4. pay 5.00 USD out to it and wait for the transfer to complete;
//  5. send the platform a test webhook;
//  6. create an agent for the customer (up to 50.00 USD a payment, above 20.00 USD only with
//     the platform's approval) and print its device code, for an AI assistant to sign in with
//     through `paycore mcp`.
//
// Every POST goes through paycore.Idempotent, so a lost answer is resent safely. The API's
// base URL is PAYCORE_BASE_URL (default http://127.0.0.1:8080/api/2025-10-13); the platform's
// token is PAYCORE_TOKEN_ID and PAYCORE_TOKEN_SECRET, or else the sandbox platform's that
// `make run` wrote to .data/sandbox-platform.json at the repository's root (-platform-file).
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"os"
	"os/signal"
	"strings"
	"time"

	paycore "paycore/sdk/go"
)

func main() {
	platformFile := flag.String("platform-file", "../../.data/sandbox-platform.json", "the sandbox platform's credentials, when PAYCORE_TOKEN_ID is unset")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *platformFile, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go-platform:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, platformFile string, out io.Writer) error {
	base := cmp.Or(os.Getenv("PAYCORE_BASE_URL"), "http://127.0.0.1:8080/api/2025-10-13")
	id, secret, err := credentials(platformFile)
	if err != nil {
		return err
	}
	c, err := paycore.New(base, id, secret)
	if err != nil {
		return err
	}

	// 1. The platform.
	cfg, err := paycore.Check(c.GetPlatformConfigWithResponse(ctx))
	if err != nil {
		return fmt.Errorf("read the configuration: %w", err)
	}
	regulated := deref(cfg.JSON200.IsRegulatedFinancialInstitution)
	fmt.Fprintf(out, "Platform %s at %s (regulated: %v)\n", deref(cfg.JSON200.PlatformId), base, regulated)

	// 2. A customer who may move money.
	customer, err := verifiedCustomer(ctx, c, regulated, out)
	if err != nil {
		return err
	}

	// 3. Money in the sandbox, and the customer's bank account.
	kind := paycore.InternalAccountType("INTERNAL_FIAT")
	usd := "USD"
	accts, err := paycore.Check(c.ListCustomerInternalAccountsWithResponse(ctx, &paycore.ListCustomerInternalAccountsParams{CustomerId: &customer, Type: &kind, Currency: &usd}))
	if err != nil {
		return fmt.Errorf("list the customer's accounts: %w", err)
	}
	if len(accts.JSON200.Data) == 0 {
		return fmt.Errorf("customer %s has no USD account", customer)
	}
	account := accts.JSON200.Data[0].Id
	funded, err := paycore.Check(c.SandboxFundInternalAccountWithResponse(ctx, account, nil, paycore.SandboxFundRequest{Amount: 100_00}))
	if err != nil {
		return fmt.Errorf("fund %s: %w", account, err)
	}
	fmt.Fprintf(out, "Account %s funded: %s\n", account, money(funded.JSON200.Balance))
	number := fmt.Sprintf("%06d000", time.Now().UnixMilli()%1_000_000) // 000: the sandbox's transfers succeed
	bank, err := post(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateCustomerExternalAccountResult, error) {
		return c.CreateCustomerExternalAccountWithBodyWithResponse(ctx, "application/json", jsonBody(map[string]any{
			"customerId": customer, "currency": "USD",
			"accountInfo": map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": number, "routingNumber": "021000021",
				"beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "Ada Lovelace"}},
		}), edit)
	})
	if err != nil {
		return fmt.Errorf("register the bank account: %w", err)
	}
	fmt.Fprintf(out, "Bank account %s (…%s) registered\n", bank.JSON201.Id, number[len(number)-4:])

	// 4. A payment out.
	sent, err := post(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateTransferOutResult, error) {
		return c.CreateTransferOutWithBodyWithResponse(ctx, nil, "application/json", jsonBody(map[string]any{
			"source": map[string]any{"accountId": account}, "destination": map[string]any{"accountId": bank.JSON201.Id}, "amount": 5_00,
		}), edit)
	})
	if err != nil {
		return fmt.Errorf("pay out: %w", err)
	}
	tx, err := transaction(sent.Body)
	if err != nil {
		return err
	}
	for tx.Status != "COMPLETED" {
		if tx.Status == "FAILED" || tx.Status == "REJECTED" {
			return fmt.Errorf("transfer %s %s", tx.ID, tx.Status)
		}
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return err
		}
		got, err := paycore.Check(c.GetTransactionByIdWithResponse(ctx, tx.ID))
		if err != nil {
			return fmt.Errorf("read %s: %w", tx.ID, err)
		}
		if tx, err = transaction(got.Body); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "Paid 5.00 USD out: %s COMPLETED\n", tx.ID)

	// 5. A test webhook.
	test, err := post(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.SendWebhookTestResult, error) {
		return c.SendWebhookTestWithResponse(ctx, nil, edit)
	})
	var apiErr *paycore.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == "WEBHOOK_ENDPOINT_NOT_SET":
		fmt.Fprintln(out, "No test webhook: the platform has no webhook endpoint (PATCH /config sets one)")
	case err != nil:
		return fmt.Errorf("send a test webhook: %w", err)
	default:
		fmt.Fprintf(out, "Test webhook sent to %s: answered %d\n", test.JSON200.Url, test.JSON200.ResponseStatus)
	}

	// 6. An agent for the customer.
	threshold, currency := int64(20_00), "USD"
	agent, err := post(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateAgentResult, error) {
		return c.CreateAgentWithResponse(ctx, nil, paycore.AgentCreateRequest{CustomerId: customer, Name: "Quickstart assistant", Policy: paycore.AgentPolicy{
			Permissions:          []paycore.AgentPermission{paycore.VIEWTRANSACTIONS, paycore.CREATETRANSFERS, paycore.CREATEQUOTES, paycore.EXECUTEQUOTES, paycore.MANAGEEXTERNALACCOUNTS},
			DefaultExecutionMode: paycore.AgentExecutionModeAUTO,
			SpendingLimits:       paycore.AgentSpendingLimits{Currency: "USD", PerTransactionLimit: 50_00},
			ApprovalThresholds:   &paycore.AgentApprovalThresholds{Amount: &threshold, Currency: &currency},
		}}, edit)
	})
	if err != nil {
		return fmt.Errorf("create an agent: %w", err)
	}
	a := agent.JSON201
	fmt.Fprintf(out, "Agent %s %q: up to 50.00 USD a payment, above 20.00 USD with the platform's approval\n", a.Agent.Id, a.Agent.Name)
	fmt.Fprintf(out, "Its device code, until %s: %s\n", a.DeviceCode.ExpiresAt.Local().Format(time.Kitchen), a.DeviceCode.Code)
	return nil
}

// verifiedCustomer creates an individual customer who may move money, and returns its id. A
// regulated platform attests its own KYC; any other has the service verify the customer. The
// details and the document are the sandbox's placeholders: a real platform collects them.
func verifiedCustomer(ctx context.Context, c *paycore.ClientWithResponses, regulated bool, out io.Writer) (string, error) {
	body := map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ada Lovelace", "currencies": []string{"USD"},
		"platformCustomerId": fmt.Sprintf("go-quickstart-%d", time.Now().UnixNano())}
	if regulated {
		body["kycStatus"] = "APPROVED"
	} else {
		body["birthDate"], body["nationality"] = "1990-05-17", "US"
		body["address"] = map[string]any{"line1": "1 Main St", "city": "San Francisco", "postalCode": "94105", "country": "US"}
	}
	created, err := post(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateCustomerResult, error) {
		return c.CreateCustomerWithBodyWithResponse(ctx, nil, "application/json", jsonBody(body), edit)
	})
	if err != nil {
		return "", fmt.Errorf("create a customer: %w", err)
	}
	id := created.JSON201.Id
	if regulated {
		fmt.Fprintf(out, "Customer %s created, its KYC attested by the platform\n", id)
		return id, nil
	}

	form, contentType, err := passport(id)
	if err != nil {
		return "", err
	}
	if _, err := paycore.Check(c.UploadDocumentWithBodyWithResponse(ctx, contentType, form)); err != nil {
		return "", fmt.Errorf("upload the identity document: %w", err)
	}
	v, err := post(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateVerificationResult, error) {
		return c.CreateVerificationWithResponse(ctx, paycore.CreateVerificationJSONRequestBody{CustomerId: id}, edit)
	})
	if err != nil {
		return "", fmt.Errorf("start the verification: %w", err)
	}
	status := v.JSON200.VerificationStatus
	for deadline := time.Now().Add(time.Minute); status == "IN_PROGRESS" && time.Now().Before(deadline); {
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return "", err
		}
		got, err := paycore.Check(c.GetVerificationWithResponse(ctx, v.JSON200.Id))
		if err != nil {
			return "", fmt.Errorf("read the verification: %w", err)
		}
		status = got.JSON200.VerificationStatus
	}
	if status != "APPROVED" {
		return "", fmt.Errorf("customer %s: verification %s", id, status)
	}
	fmt.Fprintf(out, "Customer %s created and verified by the service\n", id)
	return id, nil
}

// passport is a multipart form uploading a placeholder identity document (a PNG) for the
// customer.
func passport(customer string) (io.Reader, string, error) {
	var img bytes.Buffer
	pic := image.NewGray(image.Rect(0, 0, 32, 20))
	for x := range 32 {
		pic.SetGray(x, 10, color.Gray{Y: 200})
	}
	if err := png.Encode(&img, pic); err != nil {
		return nil, "", err
	}
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	for _, f := range [][2]string{{"documentType", "PASSPORT"}, {"country", "US"}, {"documentHolder", customer}} {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, "", err
		}
	}
	part, err := w.CreatePart(map[string][]string{
		"Content-Disposition": {`form-data; name="file"; filename="passport.png"`}, "Content-Type": {"image/png"}})
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(img.Bytes()); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &form, w.FormDataContentType(), nil
}

// post sends a POST through paycore.Idempotent: with an Idempotency-Key, resent with the same
// key when that is safe.
func post[R any](ctx context.Context, call paycore.Call[R]) (R, error) {
	return paycore.Idempotent(ctx, call, paycore.IdempotencyOptions{})
}

// tx is what the example reads of a transaction.
type tx struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

func transaction(body []byte) (tx, error) {
	var t tx
	if err := json.Unmarshal(body, &t); err != nil || t.ID == "" {
		return t, fmt.Errorf("not a transaction: %s", body)
	}
	return t, nil
}

func money(a paycore.CurrencyAmount) string {
	return fmt.Sprintf("%d.%02d %s", a.Amount/100, a.Amount%100, a.Currency.Code)
}

// deref is *p, or the zero value when p is nil (an optional field left out).
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

func jsonBody(v any) io.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and numbers always encode
	}
	return bytes.NewReader(b)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// credentials is the platform's API token: PAYCORE_TOKEN_ID and PAYCORE_TOKEN_SECRET, or the
// sandbox platform's in file.
func credentials(file string) (string, string, error) {
	if id, secret := os.Getenv("PAYCORE_TOKEN_ID"), os.Getenv("PAYCORE_TOKEN_SECRET"); id != "" && secret != "" {
		return id, secret, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", "", errors.New("no API token: set PAYCORE_TOKEN_ID and PAYCORE_TOKEN_SECRET, or run `make run` first (it writes .data/sandbox-platform.json)")
	}
	var creds struct{ ClientID, ClientSecret string }
	if err := json.Unmarshal(b, &creds); err != nil || creds.ClientID == "" || creds.ClientSecret == "" {
		return "", "", fmt.Errorf("%s holds no API token", file)
	}
	return strings.TrimSpace(creds.ClientID), strings.TrimSpace(creds.ClientSecret), nil
}
