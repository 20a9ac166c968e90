// Package lnd is a client of an LND node's gRPC API: TLS with the node's certificate, its
// macaroon on every call, and the few calls the Lightning rail makes (pay an invoice and
// find how a payment ended, create and watch invoices, probe a route's fee, read the
// node's balances). The stubs in lndrpc are generated from the part of LND's API they
// declare.
package lnd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"paycore/internal/infra/lnd/lndrpc"
)

// Config is where the node listens and what authenticates the service to it.
type Config struct {
	// Address is the node's gRPC listener (host:port).
	Address string
	// TLSCertPath is the node's TLS certificate (tls.cert), the one it is trusted by.
	TLSCertPath string
	// MacaroonPath is a macaroon the node granted (admin.macaroon, or one baked with the
	// invoice, offchain and info permissions).
	MacaroonPath string
}

// Client talks to one LND node. It is safe for concurrent use.
type Client struct {
	conn   *grpc.ClientConn
	ln     lndrpc.LightningClient
	router lndrpc.RouterClient
}

// Errors of the client.
var (
	// ErrPaymentExists: the node already has a payment for the invoice's hash (in flight
	// or settled); Track it.
	ErrPaymentExists = errors.New("lnd: a payment for this hash exists")
	// ErrNotFound: the node has no payment (or invoice) for the hash.
	ErrNotFound = errors.New("lnd: no payment for this hash")
)

// Dial connects to the node (lazily: the first call connects).
func Dial(cfg Config) (*Client, error) {
	if cfg.Address == "" || cfg.TLSCertPath == "" || cfg.MacaroonPath == "" {
		return nil, errors.New("lnd: address, TLS certificate and macaroon are all required")
	}
	tlsCreds, err := credentials.NewClientTLSFromFile(cfg.TLSCertPath, "")
	if err != nil {
		return nil, fmt.Errorf("lnd: TLS certificate: %w", err)
	}
	mac, err := os.ReadFile(cfg.MacaroonPath)
	if err != nil {
		return nil, fmt.Errorf("lnd: macaroon: %w", err)
	}
	conn, err := grpc.NewClient(cfg.Address, grpc.WithTransportCredentials(tlsCreds),
		grpc.WithPerRPCCredentials(macaroon(hex.EncodeToString(mac))),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return nil, fmt.Errorf("lnd: dial %s: %w", cfg.Address, err)
	}
	return &Client{conn: conn, ln: lndrpc.NewLightningClient(conn), router: lndrpc.NewRouterClient(conn)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// macaroon sends the macaroon (hex) with every call, as LND expects it.
type macaroon string

func (m macaroon) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"macaroon": string(m)}, nil
}

func (macaroon) RequireTransportSecurity() bool { return true }

// Info is the node's identity and chain state.
func (c *Client) Info(ctx context.Context) (*lndrpc.GetInfoResponse, error) {
	r, err := c.ln.GetInfo(ctx, &lndrpc.GetInfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("lnd: get info: %w", err)
	}
	return r, nil
}

// Mainnet reports whether the node is on Bitcoin's main network, where its payments move
// real money.
func (c *Client) Mainnet(ctx context.Context) (bool, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return false, err
	}
	for _, ch := range info.GetChains() {
		if ch.GetNetwork() == "mainnet" {
			return true, nil
		}
	}
	return false, nil
}

// Decode decodes a BOLT11 invoice; the node refuses one that is malformed or for another
// network (ErrInvalid).
func (c *Client) Decode(ctx context.Context, invoice string) (*lndrpc.PayReq, error) {
	var r *lndrpc.PayReq
	err := c.withInvoice(ctx, func() (err error) {
		r, err = c.ln.DecodePayReq(ctx, &lndrpc.PayReqString{PayReq: invoice})
		return err
	})
	if err != nil && !errors.Is(err, ErrInvalid) {
		err = fmt.Errorf("lnd: decode invoice: %w", err)
	}
	return r, err
}

// withInvoice runs call, a call given an invoice, and tells the node's refusal of the
// invoice (ErrInvalid) from any other failure. LND answers a malformed invoice with a plain
// error (code Unknown, or InvalidArgument), as it answers every call while it starts up: so
// the invoice is invalid only when the node, once it answers GetInfo (it is up), refuses
// it again; any other failure is an error to retry.
func (c *Client) withInvoice(ctx context.Context, call func() error) error {
	err := call()
	if !refusedInvoice(err) {
		return err
	}
	if _, up := c.ln.GetInfo(ctx, &lndrpc.GetInfoRequest{}); up != nil {
		return fmt.Errorf("%w (the node is not ready: %v)", err, up)
	}
	if err = call(); refusedInvoice(err) {
		return fmt.Errorf("%w: %s", ErrInvalid, status.Convert(err).Message())
	}
	return err
}

// refusedInvoice reports whether a call given an invoice answered with the kind of error
// a malformed invoice gets.
func refusedInvoice(err error) bool {
	c := status.Code(err)
	return c == codes.Unknown || c == codes.InvalidArgument
}

// ErrInvalid: the node refused an invoice as malformed or not for its network.
var ErrInvalid = errors.New("lnd: invalid invoice")

// NewInvoice is an invoice to create: Sats 0 lets the payer choose the amount;
// DescriptionHash (32 bytes) replaces Memo in the invoice when set (LNURL-pay); Expiry 0 is
// the node's default (an hour).
type NewInvoice struct {
	Sats            int64
	Memo            string
	DescriptionHash []byte
	Expiry          time.Duration
}

// AddInvoice creates an invoice on the node.
func (c *Client) AddInvoice(ctx context.Context, in NewInvoice) (*lndrpc.AddInvoiceResponse, error) {
	r, err := c.ln.AddInvoice(ctx, &lndrpc.Invoice{Value: in.Sats, Memo: in.Memo, DescriptionHash: in.DescriptionHash,
		Expiry: int64(in.Expiry / time.Second)})
	if err != nil {
		return nil, fmt.Errorf("lnd: add invoice: %w", err)
	}
	return r, nil
}

// LookupInvoice is the node's invoice for the payment hash (ErrNotFound when it has none).
func (c *Client) LookupInvoice(ctx context.Context, hash []byte) (*lndrpc.Invoice, error) {
	r, err := c.ln.LookupInvoice(ctx, &lndrpc.PaymentHash{RHash: hash})
	if err != nil {
		if status.Code(err) == codes.NotFound {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("lnd: lookup invoice: %w", err)
	}
	return r, nil
}

// SubscribeInvoices calls visit with every invoice the node adds or settles after the
// given indexes (0, 0: from now on) until ctx ends or the stream breaks (its error).
func (c *Client) SubscribeInvoices(ctx context.Context, addIndex, settleIndex uint64, visit func(*lndrpc.Invoice) error) error {
	stream, err := c.ln.SubscribeInvoices(ctx, &lndrpc.InvoiceSubscription{AddIndex: addIndex, SettleIndex: settleIndex})
	if err != nil {
		return fmt.Errorf("lnd: subscribe invoices: %w", err)
	}
	for {
		inv, err := stream.Recv()
		if err != nil {
			return fmt.Errorf("lnd: invoice subscription: %w", err)
		}
		if err := visit(inv); err != nil {
			return err
		}
	}
}

// Payment is an outgoing payment to pay: a BOLT11 invoice, the amount when the invoice
// names none, the most the route's fees may take, and how long the node keeps trying.
type Payment struct {
	Invoice      string
	Sats         int64 // only for an invoice without an amount
	FeeLimitSats int64
	Timeout      time.Duration
}

// Pay pays an invoice and returns the payment once it is final (SUCCEEDED or FAILED).
// A payment for the invoice's hash that the node already has is ErrPaymentExists: the
// node never pays one hash twice, and Track finds how it ended.
func (c *Client) Pay(ctx context.Context, p Payment) (*lndrpc.Payment, error) {
	timeout := int32(p.Timeout / time.Second)
	if timeout <= 0 {
		timeout = 60
	}
	stream, err := c.router.SendPaymentV2(ctx, &lndrpc.SendPaymentRequest{PaymentRequest: p.Invoice, Amt: p.Sats,
		FeeLimitSat: p.FeeLimitSats, TimeoutSeconds: timeout, NoInflightUpdates: true})
	if err != nil {
		return nil, fmt.Errorf("lnd: send payment: %w", err)
	}
	pay, err := final(stream)
	if status.Code(err) == codes.AlreadyExists {
		return nil, fmt.Errorf("%w: %s", ErrPaymentExists, status.Convert(err).Message())
	}
	if err != nil {
		return nil, fmt.Errorf("lnd: send payment: %w", err)
	}
	return pay, nil
}

// Track waits for the node's payment for the hash to be final and returns it; ErrNotFound
// when the node has none.
func (c *Client) Track(ctx context.Context, hash []byte) (*lndrpc.Payment, error) {
	stream, err := c.router.TrackPaymentV2(ctx, &lndrpc.TrackPaymentRequest{PaymentHash: hash, NoInflightUpdates: true})
	if err != nil {
		return nil, fmt.Errorf("lnd: track payment: %w", err)
	}
	pay, err := final(stream)
	if status.Code(err) == codes.NotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("lnd: track payment: %w", err)
	}
	return pay, nil
}

// final reads a payment stream until the payment is final.
func final(stream grpc.ServerStreamingClient[lndrpc.Payment]) (*lndrpc.Payment, error) {
	for {
		p, err := stream.Recv()
		if err == io.EOF {
			return nil, errors.New("the stream ended before the payment was final")
		}
		if err != nil {
			return nil, err
		}
		if p.Status == lndrpc.Payment_SUCCEEDED || p.Status == lndrpc.Payment_FAILED {
			return p, nil
		}
	}
}

// RouteFee is what a probe found: the routing fee (millisatoshis) or why no route was
// found.
type RouteFee struct {
	FeeMsat int64
	Failure lndrpc.PaymentFailureReason
}

// EstimateFee probes a route for paying the invoice (a real probe payment the recipient
// cannot settle) and reports its fee.
func (c *Client) EstimateFee(ctx context.Context, invoice string, timeout time.Duration) (RouteFee, error) {
	var r *lndrpc.RouteFeeResponse
	err := c.withInvoice(ctx, func() (err error) {
		r, err = c.router.EstimateRouteFee(ctx, &lndrpc.RouteFeeRequest{PaymentRequest: invoice, Timeout: uint32(timeout / time.Second)})
		return err
	})
	if errors.Is(err, ErrInvalid) {
		return RouteFee{}, err
	}
	if err != nil {
		return RouteFee{}, fmt.Errorf("lnd: estimate route fee: %w", err)
	}
	return RouteFee{FeeMsat: r.RoutingFeeMsat, Failure: r.FailureReason}, nil
}

// Balances are the node's funds in satoshis, read from one snapshot of its channels: its
// side of them, the payments it sends that are in flight (still its money until their
// preimage comes back), the commitment fees of the channels it opened (the opener's money,
// which an update of the fee rate, or an HTLC's weight, moves from its side and back), and
// its on-chain wallet (confirmed and not). Payments it receives that are in flight are not
// its money yet.
type Balances struct {
	ChannelLocal int64
	OutgoingHTLC int64 // sent, in flight
	IncomingHTLC int64 // received, in flight (not counted in Total)
	CommitFees   int64
	OnChain      int64
}

// Total is everything the node holds.
func (b Balances) Total() int64 { return b.ChannelLocal + b.OutgoingHTLC + b.CommitFees + b.OnChain }

// InFlight reports whether payments are in flight in the node's channels.
func (b Balances) InFlight() bool { return b.OutgoingHTLC != 0 || b.IncomingHTLC != 0 }

// Balances reads the node's balances.
func (c *Client) Balances(ctx context.Context) (Balances, error) {
	w, err := c.ln.WalletBalance(ctx, &lndrpc.WalletBalanceRequest{})
	if err != nil {
		return Balances{}, fmt.Errorf("lnd: wallet balance: %w", err)
	}
	chans, err := c.ln.ListChannels(ctx, &lndrpc.ListChannelsRequest{})
	if err != nil {
		return Balances{}, fmt.Errorf("lnd: list channels: %w", err)
	}
	b := Balances{OnChain: w.TotalBalance}
	for _, ch := range chans.Channels {
		b.ChannelLocal += ch.LocalBalance
		if ch.Initiator {
			b.CommitFees += ch.CommitFee
		}
		for _, h := range ch.PendingHtlcs {
			if h.Incoming {
				b.IncomingHTLC += h.Amount
			} else {
				b.OutgoingHTLC += h.Amount
			}
		}
	}
	return b, nil
}

// ChannelPoints are the funding outpoints ("txid:index") of the node's channels, by
// channel id (closed channels are not among them).
func (c *Client) ChannelPoints(ctx context.Context) (map[uint64]string, error) {
	chans, err := c.ln.ListChannels(ctx, &lndrpc.ListChannelsRequest{})
	if err != nil {
		return nil, fmt.Errorf("lnd: list channels: %w", err)
	}
	out := make(map[uint64]string, len(chans.Channels))
	for _, ch := range chans.Channels {
		out[ch.ChanId] = ch.ChannelPoint
	}
	return out, nil
}
