//go:build tools

// Package lightning pins the Lightning network software the project builds into bin/ for
// its regtest network (make lightning-tools): LND, its CLI, and btcd with its CLI, at the
// versions lnd v0.20.0-beta requires.
package lightning

import (
	_ "github.com/btcsuite/btcd"
	_ "github.com/btcsuite/btcd/cmd/btcctl"
	_ "github.com/lightningnetwork/lnd/cmd/lncli"
	_ "github.com/lightningnetwork/lnd/cmd/lnd"
)
