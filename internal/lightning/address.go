package lightning

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A customer's Lightning address (LUD-16) is its UMA address without the leading "$":
// $alice@pay.example is reached as alice@pay.example, a reusable way to pay it in BTC.

// Bounds of what a Lightning address takes, in millisatoshis, and how long the invoice
// its callback answers stays payable.
const (
	MinReceivableMsat    = 1_000
	MaxReceivableMsat    = 10_000_000_000 // 0.1 BTC
	AddressInvoiceExpiry = 10 * time.Minute
	// MaxOpenAddressInvoices bounds the unpaid, payable invoices one Lightning address has
	// made: the callback needs no credential, so anyone can ask it for invoices.
	MaxOpenAddressInvoices = 100
)

// UmaAddressOf is the UMA address whose Lightning address is user@domain.
func UmaAddressOf(user, domain string) string {
	return "$" + strings.ToLower(user) + "@" + strings.ToLower(domain)
}

// AddressPayRequest is the pay request a customer's Lightning address answers.
func AddressPayRequest(callback, user, domain string) PayRequest {
	address := strings.ToLower(user + "@" + domain)
	meta, _ := json.Marshal([][]string{{"text/plain", "Payment to " + address}, {"text/identifier", address}})
	return PayRequest{Callback: callback, MinSendable: MinReceivableMsat, MaxSendable: MaxReceivableMsat, Metadata: string(meta), Tag: "payRequest"}
}

// ReceiveAmount reads the amount a payer asks the callback for (millisatoshis): whole
// satoshis within the bounds.
func ReceiveAmount(msat string) (int64, error) {
	n, err := strconv.ParseInt(msat, 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("amount must be an integer number of millisatoshis")
	case n < MinReceivableMsat || n > MaxReceivableMsat:
		return 0, fmt.Errorf("amount must be from %d to %d millisatoshis", MinReceivableMsat, MaxReceivableMsat)
	case n%1000 != 0:
		return 0, fmt.Errorf("amount must be whole satoshis (a multiple of 1000 millisatoshis)")
	}
	return n / 1000, nil
}
