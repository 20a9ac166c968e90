package agentmcp

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/zalando/go-keyring"
)

// KeyringStore keeps the token in the operating system's keyring: the Secret Service (GNOME
// Keyring, KWallet) over the session's D-Bus on Linux and the BSDs, the Keychain on macOS, the
// Credential Manager on Windows. The item is Service's, for User.
type KeyringStore struct {
	Service, User string
	// Timeout bounds each call (5 s when 0): a keyring that waits for a person to unlock it
	// must not hang the MCP server.
	Timeout time.Duration
}

// The keyring item the token is kept in.
const (
	KeyringService = "paycore"
	KeyringUser    = "agent-token"
)

// Load reads the token ("" when the keyring holds none).
func (k KeyringStore) Load() (string, error) {
	var token string
	err := k.bounded(func() error {
		t, err := keyring.Get(k.Service, k.User)
		token = t
		return err
	})
	if errors.Is(err, keyring.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the agent's token from the OS keyring: %w", err)
	}
	return token, nil
}

// Save keeps the token, replacing any before it.
func (k KeyringStore) Save(token string) error {
	if err := k.bounded(func() error { return keyring.Set(k.Service, k.User, token) }); err != nil {
		return fmt.Errorf("keep the agent's token in the OS keyring: %w", err)
	}
	return nil
}

// Where says where the token is kept.
func (k KeyringStore) Where() string {
	return fmt.Sprintf("the OS keyring (service %q, account %q)", k.Service, k.User)
}

// bounded runs call, giving up after the timeout (the call goes on in the background).
func (k KeyringStore) bounded(call func() error) error {
	timeout := k.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("no answer within %s (is the keyring locked?)", timeout)
	}
}

// OpenTokenStore is where `paycore mcp` keeps the agent's token: the file tokenFile when one
// is named; else the OS keyring where one is present and answers; else the file
// DefaultTokenPath. On Linux and the BSDs a keyring is present only in a session with a
// D-Bus session bus (DBUS_SESSION_BUS_ADDRESS, read through getenv), so a server or a
// container without one never tries to start a bus.
func OpenTokenStore(tokenFile string, getenv func(string) string) (TokenStore, error) {
	if tokenFile != "" {
		return FileStore{Path: tokenFile}, nil
	}
	if keyringPresent(runtime.GOOS, getenv) {
		k := KeyringStore{Service: KeyringService, User: KeyringUser}
		if _, err := k.Load(); err == nil {
			return k, nil
		}
	}
	path, err := DefaultTokenPath()
	if err != nil {
		return nil, err
	}
	return FileStore{Path: path}, nil
}

// keyringPresent says whether the system may have a keyring the process can reach.
func keyringPresent(goos string, getenv func(string) string) bool {
	switch goos {
	case "darwin", "windows":
		return true
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return getenv("DBUS_SESSION_BUS_ADDRESS") != ""
	}
	return false
}
