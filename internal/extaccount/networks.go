package extaccount

import (
	"regexp"
	"slices"
	"strings"
)

// bitcoinRE accepts a bech32/bech32m address of mainnet, testnet or regtest (bc1, tb1,
// bcrt1) or a legacy base58 address (1… or 3…).
var bitcoinRE = regexp.MustCompile(`^((bc1|tb1|bcrt1)[02-9ac-hj-np-z]{11,87}|[13][1-9A-HJ-NP-Za-km-z]{25,34})$`)

func bitcoinAddress(s string) string {
	if bitcoinRE.MatchString(s) {
		return ""
	}
	return "must be a Bitcoin address: bc1… (bech32) or a base58 address starting with 1 or 3"
}

// networkAddress checks an address on each crypto network, as the wallet account types do.
// Its networks are those fx prices withdrawals on (fx tests that the two sets are equal).
var networkAddress = map[string]func(string) string{
	"SOLANA": solanaAddress, "ETHEREUM": evmAddress, "BASE": evmAddress, "POLYGON": evmAddress,
	"SPARK": sparkAddress, "BITCOIN": bitcoinAddress,
	"LIGHTNING": func(s string) string {
		if strings.Contains(s, "@") {
			return lightningAddress(s)
		}
		return bolt11(s)
	},
}

// CheckAddress checks a destination address on a crypto network: "" when acceptable,
// else what is wrong (an unknown network included).
func CheckAddress(network, address string) string {
	check, ok := networkAddress[network]
	if !ok {
		return "is not a supported network"
	}
	return check(address)
}

// Networks are the crypto networks whose addresses CheckAddress checks, sorted.
func Networks() []string {
	out := make([]string, 0, len(networkAddress))
	for name := range networkAddress {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
