package agentmcp

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// secretService starts a session bus (dbus-daemon) and GNOME Keyring's Secret Service on it,
// its login keyring created and unlocked, all under a temporary home; the test's
// DBUS_SESSION_BUS_ADDRESS is that bus. Without the two programs the test is skipped, except
// in CI (apt-get install gnome-keyring libsecret-tools dbus-daemon).
func secretService(t *testing.T) {
	t.Helper()
	daemon, keyringDaemon := lookPath(t, "dbus-daemon"), lookPath(t, "gnome-keyring-daemon")
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_RUNTIME_DIR="+home)

	bus := exec.Command(daemon, "--session", "--nofork", "--nopidfile", "--print-address=1")
	bus.Env = env
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start(t, bus)
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", a)
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+a)
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon printed no address within 10 s")
	}

	// --unlock reads the login keyring's password from stdin, creating the keyring.
	kr := exec.Command(keyringDaemon, "--foreground", "--components=secrets", "--unlock")
	kr.Env = env
	kr.Stdin = strings.NewReader("a test password")
	start(t, kr)
	// The service is up once it owns its name on the bus.
	deadline := time.Now().Add(10 * time.Second)
	for {
		names, _ := exec.Command("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames").Output()
		if strings.Contains(string(names), "org.freedesktop.secrets") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("GNOME Keyring did not register org.freedesktop.secrets within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI (apt-get install gnome-keyring libsecret-tools dbus-daemon)", name)
		}
		t.Skipf("%s not installed: apt-get install gnome-keyring libsecret-tools dbus-daemon to run the keyring test", name)
	}
	return p
}

// start runs cmd in a process group of its own, killed when the test ends.
func start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
}

// With a Secret Service on the session bus, `paycore mcp` keeps the token there and in no
// file; a second token replaces the first; -token-file still chooses a file.
func TestTokenKeptInTheOSKeyring(t *testing.T) {
	secretService(t)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config) // where DefaultTokenPath would put the file

	store, err := OpenTokenStore("", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := store.(KeyringStore); !ok {
		t.Fatalf("with a Secret Service on the bus the token goes to %s, not the keyring", store.Where())
	}
	if tok, err := store.Load(); err != nil || tok != "" {
		t.Fatalf("an empty keyring: %q, %v", tok, err)
	}
	for _, token := range []string{"pcagent_first", "pcagent_second"} {
		if err := store.Save(token); err != nil {
			t.Fatal(err)
		}
		// A store opened afresh, as the next `paycore mcp` would.
		again, err := OpenTokenStore("", os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := again.Load(); err != nil || got != token {
			t.Fatalf("read back %q, %v; want %q", got, err, token)
		}
	}
	// The keyring itself holds it, as libsecret's own command-line tool reads it.
	out, err := exec.Command(lookPath(t, "secret-tool"), "lookup", "service", KeyringService, "username", KeyringUser).Output()
	if err != nil || strings.TrimSpace(string(out)) != "pcagent_second" {
		t.Fatalf("secret-tool lookup: %q, %v", out, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(config, "paycore")); len(entries) != 0 {
		t.Fatalf("a token file was written beside the keyring: %v", entries)
	}

	named := filepath.Join(t.TempDir(), "token")
	fileStore, err := OpenTokenStore(named, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := fileStore.(FileStore); !ok || f.Path != named {
		t.Fatalf("-token-file: the token goes to %s", fileStore.Where())
	}
}

// Without a session bus, or with a bus where no keyring answers, the token goes to the file.
func TestTokenFileWithoutAKeyring(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	check := func(name string, getenv func(string) string) {
		t.Helper()
		store, err := OpenTokenStore("", getenv)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := store.(FileStore); !ok || f.Path != filepath.Join(config, "paycore", "agent-token") {
			t.Fatalf("%s: the token goes to %s", name, store.Where())
		}
	}
	check("no session bus", func(string) string { return "" })
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	check("a bus nobody listens on", os.Getenv)
	if keyringPresent("linux", func(string) string { return "" }) || !keyringPresent("darwin", func(string) string { return "" }) {
		t.Fatal("keyringPresent: a Linux session without a bus has none; macOS always has its Keychain")
	}
}
