// Package npmci installs the Node packages that tests run (the wallet client libraries'
// interop script, the integrator kit under examples/): `npm ci` from the committed
// package-lock.json, once per lock file change, one install or build at a time across the
// test binaries `go test ./...` runs in parallel.
package npmci

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Lock takes the machine-wide lock called name (a file in the temporary directory) and
// returns the function that releases it. Tests that install or build the same packages
// take the same lock.
func Lock(name string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "paycore-"+name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", name, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("take lock %s: %w", name, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Install runs `npm ci` in dir unless node_modules was installed from its current
// package-lock.json (the marker node_modules/.installed, which `make generate` and
// `make verify` leave too, is not older than the lock file). The caller holds the lock of
// these packages.
func Install(dir string) error {
	marker := filepath.Join(dir, "node_modules", ".installed")
	if m, err := os.Stat(marker); err == nil {
		if l, err := os.Stat(filepath.Join(dir, "package-lock.json")); err == nil && !m.ModTime().Before(l.ModTime()) {
			return nil
		}
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %w: %s", dir, err, out)
	}
	return os.WriteFile(marker, nil, 0o644)
}
