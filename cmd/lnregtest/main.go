// Command lnregtest starts the regtest Lightning network (package internal/infra/lnregtest)
// for development: btcd and two LND nodes with an active channel between them, from the
// binaries make lightning-tools builds. It prints how to reach each node, runs until
// interrupted, then stops the network cleanly. make run-lightning runs it on a fresh
// directory under .data/.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"paycore/internal/infra/lnregtest"
)

func main() {
	bin := flag.String("bin", "bin", "the directory holding btcd, btcctl, lnd and lncli")
	dir := flag.String("dir", ".data/lightning", "the network's data directory (emptied first)")
	port := flag.Int("port", 18710, "the first of the ten loopback ports the network takes")
	flag.Parse()
	if err := run(*bin, *dir, *port); err != nil {
		fmt.Fprintln(os.Stderr, "lnregtest:", err)
		os.Exit(1)
	}
}

func run(bin, dir string, port int) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("empty %s: %w", dir, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, args ...any) { fmt.Printf(">> "+format+"\n", args...) }
	n, err := lnregtest.Start(ctx, lnregtest.Config{Bin: bin, Dir: dir, BasePort: port, Log: logf})
	if err != nil {
		return err
	}
	defer n.Stop()
	for _, node := range []*lnregtest.Node{n.Node, n.Peer} {
		fmt.Printf("%s: pubkey %s, p2p %s\n  rpc %s\n  tls cert %s\n  macaroon %s\n  lncli: %s/lncli --network=regtest --rpcserver=%s --tlscertpath=%s --macaroonpath=%s getinfo\n",
			node.Name, node.PubKey, node.P2PAddr, node.RPCAddr, node.TLSCert, node.Macaroon, bin, node.RPCAddr, node.TLSCert, node.Macaroon)
	}
	// The service on this network: the deployment's node pays and receives for sandbox
	// platforms' BTC payments to LIGHTNING accounts; everything else stays on the sandbox.
	fmt.Printf("the service on this network's node (in another terminal):\n  PAYCORE_LND_ADDRESS=%s PAYCORE_LND_TLS_CERT=%s PAYCORE_LND_MACAROON=%s \\\n  PAYCORE_RAILS='SANDBOX:*:*=sandbox,SANDBOX:BTC:EXTERNAL_ACCOUNT:LIGHTNING=lightning' make run\n",
		n.Node.RPCAddr, n.Node.TLSCert, n.Node.Macaroon)
	fmt.Println("running; Ctrl-C stops the network")
	<-ctx.Done()
	fmt.Println("stopping")
	return nil
}
