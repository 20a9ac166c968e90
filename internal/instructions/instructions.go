// Package instructions builds the funding payment instructions of internal accounts: the
// bank or wallet coordinates, unique to each account, that a payer uses to send money in.
package instructions

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/mr-tron/base58"

	"paycore/internal/banking"
)

// Instruction is one PaymentInstructions item.
type Instruction struct {
	AccountOrWalletInfo map[string]any `json:"accountOrWalletInfo"`
	InstructionsNotes   string         `json:"instructionsNotes"`
	IsPlatformAccount   bool           `json:"isPlatformAccount"`
}

// Account identifies the internal account the instructions lead to.
type Account struct {
	ID         string // "InternalAccount:<uuid>"
	Number     int64  // unique per account (a database sequence)
	Currency   string
	IsPlatform bool
}

// Fixed coordinates of the service's banking partners.
var (
	usRouting = banking.MakeABA("02100002")
	gbSort    = "040075"
	deBank    = "50010517"
	dkBank    = "0040"
	mxPrefix  = "646180" // bank 646, plaza 180
)

// Reference is the code a payer quotes so funds are matched to the account.
func Reference(a Account) string {
	return fmt.Sprintf("PC%010d", a.Number%10_000_000_000)
}

// For returns the funding instructions of an account; a currency without a funding rail
// has none.
func For(a Account) []Instruction {
	n := a.Number
	ref := Reference(a)
	info := func(m map[string]any, note string) []Instruction {
		return []Instruction{{AccountOrWalletInfo: m, InstructionsNotes: note, IsPlatformAccount: a.IsPlatform}}
	}
	bankNote := "Include the reference " + ref + " with the payment so it is credited to this account."
	switch a.Currency {
	case "USD":
		return info(map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": fmt.Sprintf("8%011d", n), "routingNumber": usRouting,
			"paymentRails": []string{"ACH", "WIRE", "RTP", "FEDNOW"}, "reference": ref}, bankNote)
	case "EUR":
		return info(map[string]any{"accountType": "EUR_ACCOUNT", "iban": banking.MakeIBAN("DE", deBank+fmt.Sprintf("%010d", n)),
			"swiftCode": "PAYCDEFFXXX", "paymentRails": []string{"SEPA", "SEPA_INSTANT"}, "reference": ref}, bankNote)
	case "DKK":
		return info(map[string]any{"accountType": "DKK_ACCOUNT", "iban": banking.MakeIBAN("DK", dkBank+fmt.Sprintf("%010d", n)),
			"swiftCode": "PAYCDKKKXXX", "paymentRails": []string{"SEPA", "SEPA_INSTANT"}, "reference": ref}, bankNote)
	case "MXN":
		return info(map[string]any{"accountType": "MXN_ACCOUNT", "clabeNumber": banking.MakeCLABE(mxPrefix + fmt.Sprintf("%011d", n)),
			"paymentRails": []string{"SPEI"}, "reference": ref}, bankNote)
	case "GBP":
		return info(map[string]any{"accountType": "GBP_ACCOUNT", "sortCode": gbSort, "accountNumber": fmt.Sprintf("%08d", n%100_000_000),
			"paymentRails": []string{"FASTER_PAYMENTS"}, "reference": ref}, bankNote)
	case "BRL":
		return info(map[string]any{"accountType": "BRL_ACCOUNT", "qrCode": pixCode(n, ref)}, "Scan the Pix QR code.")
	case "INR":
		return info(map[string]any{"accountType": "INR_ACCOUNT", "vpa": fmt.Sprintf("pc%d@paycore", n), "paymentRails": []string{"UPI"}},
			"Pay to the UPI address.")
	case "CAD":
		return info(map[string]any{"accountType": "CAD_ACCOUNT", "bankCode": "621", "branchCode": "00001",
			"accountNumber": fmt.Sprintf("%010d", n), "paymentRails": []string{"BANK_TRANSFER"}, "reference": ref}, bankNote)
	case "NGN", "ZAR", "PHP":
		digits := map[string]string{"NGN": "%010d", "ZAR": "%011d", "PHP": "%012d"}[a.Currency]
		return info(map[string]any{"accountType": a.Currency + "_ACCOUNT", "accountNumber": fmt.Sprintf(digits, n%10_000_000_000),
			"bankName": "Paycore Partner Bank", "paymentRails": []string{"BANK_TRANSFER"}, "reference": ref}, bankNote)
	case "HKD", "SGD", "MYR", "THB", "VND":
		return info(map[string]any{"accountType": a.Currency + "_ACCOUNT", "accountNumber": fmt.Sprintf("%012d", n),
			"bankName": "Paycore Partner Bank", "swiftCode": "PAYC" + countryOf(a.Currency) + "XX",
			"paymentRails": []string{"BANK_TRANSFER"}, "reference": ref}, bankNote)
	case "USDC", "USDT", "SOL":
		return info(map[string]any{"accountType": "SOLANA_WALLET", "address": solanaAddress(a.ID), "assetType": a.Currency},
			"Send "+a.Currency+" on Solana to this address.")
	case "BTC", "USDB":
		return info(map[string]any{"accountType": "SPARK_WALLET", "address": sparkAddress(a.ID), "assetType": a.Currency},
			"Send "+a.Currency+" on Spark to this address.")
	}
	return []Instruction{}
}

// FundingNetworks are the crypto networks deposits for a quote can arrive on.
var FundingNetworks = []string{"SOLANA", "ETHEREUM", "BASE", "POLYGON", "SPARK"}

// ForNetwork returns the deposit instructions of a crypto currency on one network: an
// address unique to a (the quote or account) on that network.
func ForNetwork(a Account, network string) []Instruction {
	var info map[string]any
	switch network {
	case "SOLANA":
		info = map[string]any{"accountType": "SOLANA_WALLET", "address": solanaAddress(a.ID), "assetType": a.Currency}
	case "SPARK":
		info = map[string]any{"accountType": "SPARK_WALLET", "address": sparkAddress(a.ID), "assetType": a.Currency}
	case "ETHEREUM", "BASE", "POLYGON":
		sum := sha256.Sum256([]byte(strings.ToLower(network) + ":" + a.ID))
		info = map[string]any{"accountType": network + "_WALLET", "address": fmt.Sprintf("0x%x", sum[:20]), "assetType": a.Currency}
	default:
		return []Instruction{}
	}
	return []Instruction{{AccountOrWalletInfo: info, IsPlatformAccount: a.IsPlatform,
		InstructionsNotes: "Send " + a.Currency + " on " + network + " to this address."}}
}

func countryOf(currency string) string { return currency[:2] }

// pixCode is a static Pix "copia e cola" payload carrying the account's key and reference.
func pixCode(n int64, ref string) string {
	key := fmt.Sprintf("pc%d@paycore.com.br", n)
	gui := "0014br.gov.bcb.pix01" + fmt.Sprintf("%02d", len(key)) + key
	return "000201" + "26" + fmt.Sprintf("%02d", len(gui)) + gui + "52040000" + "5303986" + "5802BR" +
		"5907PAYCORE" + "6009SAO PAULO" + "62" + fmt.Sprintf("%02d", len(ref)+4) + "05" + fmt.Sprintf("%02d", len(ref)) + ref
}

// solanaAddress derives a stable 32-byte Solana address for an account.
func solanaAddress(accountID string) string {
	sum := sha256.Sum256([]byte("solana:" + accountID))
	return base58.Encode(sum[:])
}

const bech32Chars = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// sparkAddress derives a stable Spark-style address (bech32m characters) for an account.
func sparkAddress(accountID string) string {
	sum := sha256.Sum256([]byte("spark:" + accountID))
	var b strings.Builder
	b.WriteString("spark1")
	for _, c := range sum {
		b.WriteByte(bech32Chars[c&31])
		b.WriteByte(bech32Chars[(c>>3)&31])
	}
	return b.String()
}
