// Package lnregtest starts a Lightning network on Bitcoin's regtest chain, on loopback
// ports, from the binaries make lightning-tools builds (btcd, btcctl, lnd, lncli): btcd, and
// two LND nodes on it, the deployment's node and a counterparty node standing for the rest
// of the network, with coins mined to the deployment's node and a channel between the two
// whose balance is split, so that payments can go either way. Tests of the Lightning rail
// and make run-lightning use it; it is stopped cleanly, and keeps its data in its directory.
package lnregtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"paycore/internal/infra/lnd"
)

// Config is where the network's binaries are, where it keeps its data and which loopback
// ports it takes: BasePort and the nine ports after it.
type Config struct {
	Bin      string
	Dir      string
	BasePort int
	// ChannelSats is the channel's capacity; PushSats of it start on the counterparty's
	// side.
	ChannelSats int64
	PushSats    int64
	// Log receives one line per step (nil: none).
	Log func(format string, args ...any)
}

// Network is a running regtest network.
type Network struct {
	cfg      Config
	btcd     *proc
	Node     *Node // the deployment's node
	Peer     *Node // the counterparty node, standing for the rest of the network
	btcdRPC  string
	btcdCert string
}

// Node is one LND node of the network.
type Node struct {
	Name     string
	Dir      string
	RPCAddr  string
	P2PAddr  string
	TLSCert  string
	Macaroon string
	PubKey   string
	bin      string
	proc     *proc
	args     []string
}

const rpcUser, rpcPass = "paycore", "regtest"

// throwaway is a valid regtest address for btcd's first start, before the deployment's node
// has an address for the mined coins.
const throwaway = "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn"

// Start starts the network and returns it once its channel is active. On error everything
// it started is stopped.
func Start(ctx context.Context, cfg Config) (_ *Network, err error) {
	if cfg.ChannelSats == 0 {
		cfg.ChannelSats, cfg.PushSats = 1_000_000, 400_000
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	n := &Network{cfg: cfg, btcdRPC: addr(cfg.BasePort), btcdCert: filepath.Join(cfg.Dir, "btcd", "rpc.cert")}
	defer func() {
		if err != nil {
			n.Stop()
		}
	}()
	if err := n.startBtcd(ctx, throwaway); err != nil {
		return nil, err
	}
	if err := n.Mine(ctx, 1); err != nil { // a current chain, for the nodes to consider themselves synced
		return nil, err
	}
	// The deployment's node starts once alone, for the address the chain's coins are mined
	// to; btcd restarts mining to it, and the nodes start on the restarted btcd (a node
	// would miss the blocks of a btcd restarted under it).
	n.Node = n.newNode("node", cfg.BasePort+2)
	n.Peer = n.newNode("peer", cfg.BasePort+5)
	if err := n.Node.start(ctx); err != nil {
		return nil, err
	}
	var a struct {
		Address string `json:"address"`
	}
	if err := n.Node.CLIJSON(ctx, &a, "newaddress", "p2wkh"); err != nil {
		return nil, err
	}
	cfg.Log("mining to the node's address %s", a.Address)
	n.Node.proc.stop()
	n.Node.proc = nil
	if err := n.stopBtcd(); err != nil {
		return nil, err
	}
	if err := n.startBtcd(ctx, a.Address); err != nil {
		return nil, err
	}
	// The restarted btcd may not have kept the first block: the chain grows past the
	// height the node's wallet saw before the node starts again (it follows the longer
	// chain).
	if err := n.Mine(ctx, 2); err != nil {
		return nil, err
	}
	for _, node := range []*Node{n.Node, n.Peer} {
		if err := node.start(ctx); err != nil {
			return nil, err
		}
	}
	// Segwit, which channels need, activates on regtest at height 432 (BIP 9), and a
	// coinbase matures after 100 blocks.
	if err := n.Mine(ctx, 440); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "the node's confirmed balance", func() (bool, error) {
		var b struct {
			Confirmed string `json:"confirmed_balance"`
		}
		if err := n.Node.CLIJSON(ctx, &b, "walletbalance"); err != nil {
			return false, err
		}
		v, _ := strconv.ParseInt(b.Confirmed, 10, 64)
		return v > cfg.ChannelSats*2, nil
	}); err != nil {
		return nil, err
	}
	if _, err := n.Node.CLI(ctx, "connect", n.Peer.PubKey+"@"+n.Peer.P2PAddr); err != nil {
		return nil, err
	}
	if _, err := n.Node.CLI(ctx, "openchannel", "--node_key", n.Peer.PubKey, "--local_amt", strconv.FormatInt(cfg.ChannelSats, 10),
		"--push_amt", strconv.FormatInt(cfg.PushSats, 10)); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "the channel in the mempool", func() (bool, error) {
		out, err := n.btcctl(ctx, "getrawmempool")
		return err == nil && strings.Contains(string(out), `"`), err
	}); err != nil {
		return nil, err
	}
	if err := n.Mine(ctx, 6); err != nil {
		return nil, err
	}
	for _, node := range []*Node{n.Node, n.Peer} {
		if err := waitFor(ctx, node.Name+"'s active channel", func() (bool, error) {
			var c struct {
				Channels []struct {
					Active bool `json:"active"`
				} `json:"channels"`
			}
			if err := node.CLIJSON(ctx, &c, "listchannels"); err != nil {
				return false, err
			}
			return len(c.Channels) == 1 && c.Channels[0].Active, nil
		}); err != nil {
			return nil, err
		}
	}
	for _, pair := range [][2]*Node{{n.Node, n.Peer}, {n.Peer, n.Node}} {
		from, to := pair[0], pair[1]
		if err := waitFor(ctx, "a route from "+from.Name+" to "+to.Name, func() (bool, error) {
			_, err := from.CLI(ctx, "queryroutes", "--dest", to.PubKey, "--amt", "1000")
			return err == nil, nil
		}); err != nil {
			return nil, err
		}
	}
	cfg.Log("channel active: %d sats, %d on the peer's side", cfg.ChannelSats, cfg.PushSats)
	return n, nil
}

// Stop stops the nodes and btcd (interrupt, then kill after ten seconds).
func (n *Network) Stop() {
	for _, node := range []*Node{n.Peer, n.Node} {
		if node != nil {
			node.proc.stop()
		}
	}
	_ = n.stopBtcd()
}

// Mine mines blocks on the chain and waits until both nodes have seen them.
func (n *Network) Mine(ctx context.Context, blocks int) error {
	if _, err := n.btcctl(ctx, "generate", strconv.Itoa(blocks)); err != nil {
		return fmt.Errorf("mine %d blocks: %w", blocks, err)
	}
	out, err := n.btcctl(ctx, "getblockcount")
	if err != nil {
		return err
	}
	height, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	for _, node := range []*Node{n.Node, n.Peer} {
		if node == nil || node.proc == nil {
			continue
		}
		if err := waitFor(ctx, node.Name+" at height "+strconv.Itoa(height), func() (bool, error) {
			var info struct {
				Height int  `json:"block_height"`
				Synced bool `json:"synced_to_chain"`
			}
			if err := node.CLIJSON(ctx, &info, "getinfo"); err != nil {
				return false, nil // still starting
			}
			return info.Height >= height && info.Synced, nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func (n *Network) startBtcd(ctx context.Context, miningAddr string) error {
	dir := filepath.Join(n.cfg.Dir, "btcd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("btcd directory: %w", err)
	}
	btcd, err := startLogged(filepath.Join(dir, "btcd.out"), filepath.Join(n.cfg.Bin, "btcd"), "--regtest", "--datadir="+filepath.Join(dir, "data"), "--logdir="+filepath.Join(dir, "logs"),
		"--rpcuser="+rpcUser, "--rpcpass="+rpcPass, "--rpclisten="+n.btcdRPC, "--listen="+addr(n.cfg.BasePort+1),
		"--rpccert="+n.btcdCert, "--rpckey="+filepath.Join(dir, "rpc.key"), "--txindex", "--miningaddr="+miningAddr)
	if err != nil {
		return fmt.Errorf("start btcd: %w", err)
	}
	n.btcd = btcd
	n.cfg.Log("btcd started (rpc %s)", n.btcdRPC)
	return waitFor(ctx, "btcd's RPC", func() (bool, error) {
		_, err := n.btcctl(ctx, "getblockcount")
		return err == nil, nil
	})
}

func (n *Network) stopBtcd() error {
	n.btcd.stop()
	n.btcd = nil
	return nil
}

func (n *Network) btcctl(ctx context.Context, args ...string) ([]byte, error) {
	base := []string{"--regtest", "--rpcuser=" + rpcUser, "--rpcpass=" + rpcPass, "--rpcserver=" + n.btcdRPC, "--rpccert=" + n.btcdCert}
	return run(ctx, filepath.Join(n.cfg.Bin, "btcctl"), append(base, args...)...)
}

func (n *Network) newNode(name string, port int) *Node {
	dir := filepath.Join(n.cfg.Dir, name)
	node := &Node{Name: name, Dir: dir, RPCAddr: addr(port), P2PAddr: addr(port + 1), TLSCert: filepath.Join(dir, "tls.cert"),
		Macaroon: filepath.Join(dir, "data", "chain", "bitcoin", "regtest", "admin.macaroon"), bin: n.cfg.Bin}
	node.args = []string{"--lnddir=" + dir, "--noseedbackup", "--bitcoin.regtest", "--bitcoin.node=btcd",
		"--btcd.rpchost=" + n.btcdRPC, "--btcd.rpcuser=" + rpcUser, "--btcd.rpcpass=" + rpcPass, "--btcd.rpccert=" + n.btcdCert,
		"--rpclisten=" + node.RPCAddr, "--listen=" + node.P2PAddr, "--restlisten=" + addr(port+2), "--alias=" + name,
		"--nobootstrap", "--trickledelay=50", "--debuglevel=info"}
	return node
}

func (node *Node) start(ctx context.Context) error {
	if err := os.MkdirAll(node.Dir, 0o700); err != nil {
		return fmt.Errorf("%s directory: %w", node.Name, err)
	}
	p, err := startLogged(filepath.Join(node.Dir, "lnd.out"), filepath.Join(node.bin, "lnd"), node.args...)
	if err != nil {
		return fmt.Errorf("start %s: %w", node.Name, err)
	}
	node.proc = p
	return waitFor(ctx, node.Name+"'s RPC", func() (bool, error) {
		var info struct {
			PubKey string `json:"identity_pubkey"`
			Synced bool   `json:"synced_to_chain"`
		}
		if err := node.CLIJSON(ctx, &info, "getinfo"); err != nil {
			return false, nil // still starting
		}
		node.PubKey = info.PubKey
		return info.Synced, nil
	})
}

// LNDConfig is how a client reaches the node.
func (node *Node) LNDConfig() lnd.Config {
	return lnd.Config{Address: node.RPCAddr, TLSCertPath: node.TLSCert, MacaroonPath: node.Macaroon}
}

// Kill kills the node's process with SIGKILL, as a crash would, and waits for it to exit.
func (node *Node) Kill() {
	_ = node.proc.cmd.Process.Kill()
	<-node.proc.done
}

// Restart starts a node that was stopped or killed again, on its data, and waits until it
// is synced and its channels are active again.
func (node *Node) Restart(ctx context.Context) error {
	if err := node.start(ctx); err != nil {
		return err
	}
	return waitFor(ctx, node.Name+"'s channels active", func() (bool, error) {
		var chans struct {
			Channels []json.RawMessage `json:"channels"`
		}
		if err := node.CLIJSON(ctx, &chans, "listchannels", "--active_only"); err != nil {
			return false, err
		}
		return len(chans.Channels) > 0, nil
	})
}

// CLI runs lncli against the node and returns its output.
func (node *Node) CLI(ctx context.Context, args ...string) ([]byte, error) {
	base := []string{"--network=regtest", "--rpcserver=" + node.RPCAddr, "--tlscertpath=" + node.TLSCert, "--macaroonpath=" + node.Macaroon}
	return run(ctx, filepath.Join(node.bin, "lncli"), append(base, args...)...)
}

// CLIJSON runs lncli against the node and decodes its JSON output into v.
func (node *Node) CLIJSON(ctx context.Context, v any, args ...string) error {
	out, err := node.CLI(ctx, args...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("lncli %s: decode %q: %w", args[0], out, err)
	}
	return nil
}

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

func run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), strings.Join(args[len(args)-min(len(args), 3):], " "), err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

// proc is a started process, and done, closed once it has exited.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startLogged starts bin with args, its output appended to the file at logPath.
func startLogged(logPath, bin string, args ...string) (*proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		_ = f.Close()
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); _ = f.Close(); close(p.done) }()
	return p, nil
}

// stop interrupts the process and waits for it to exit, killing it after ten seconds.
func (p *proc) stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// waitFor polls cond every 200 ms for up to a minute.
func waitFor(ctx context.Context, what string, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, errors.Join(ctx.Err(), last))
		case <-time.After(200 * time.Millisecond):
		}
	}
}
