// Command archlint enforces the dependency direction of the packages (docs/architecture.md,
// "Dependency direction"): it lists every package's imports with `go list` and fails on any import
// a rule forbids. It also fails on a wall-clock read (time.Now) in the layers that take the
// time from their injected clock (api, db, activities).
//
// Every rule covers a package and all of its subpackages, present and future: a new
// workflows/payments or internal/fx is held to the rules of its parent without any change
// here. The few packages that legitimately need an import their subtree forbids are named
// one by one in the rule's exceptions, each with its reason.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

const module = "paycore"

// rule forbids imports (by path or path prefix) for the package pkg and every package below it.
type rule struct {
	pkg    string   // root of the covered subtree, e.g. "paycore/workflows"
	skip   []string // subtrees below pkg the rule does not cover (they have their own rule)
	forbid []string // an entry ending in "/" forbids everything under it; otherwise the package and its subpackages
	allow  []string // when set, module and third-party imports must start with one of these prefixes
	except []exception
	why    string
}

// exception lets one package (exactly that package, not its subpackages) use imports its
// rule forbids.
type exception struct {
	pkg     string
	imports []string
	why     string
}

var rules = []rule{
	{pkg: "paycore/api", forbid: []string{"paycore/activities", "paycore/worker", "paycore/cmd"},
		why: "the API starts workflows through workflows/start; it never runs activities"},
	{pkg: "paycore/workflows", forbid: []string{"paycore/db", "paycore/api", "paycore/worker", "github.com/jackc/", "net/http", "os", "math/rand", "go.temporal.io/sdk/client"},
		except: []exception{{pkg: "paycore/workflows/start", imports: []string{"go.temporal.io/sdk/client"},
			why: "starters run in the API process and start workflows through the Temporal client; they hold no workflow code"}},
		why: "workflow code must stay deterministic: no database, network, OS or client calls"},
	{pkg: "paycore/workflows/start", forbid: []string{"paycore/activities"},
		why: "starters only name workflows, ids and inputs"},
	{pkg: "paycore/activities", forbid: []string{"paycore/api", "paycore/workflows", "paycore/worker", "paycore/cmd"},
		why: "activities are called by workflows, never the other way"},
	{pkg: "paycore/db", forbid: []string{"paycore/api", "paycore/workflows", "paycore/activities", "paycore/worker", "paycore/cmd"},
		why: "the data layer depends on nothing above it"},
	{pkg: "paycore/worker", forbid: []string{"paycore/api", "paycore/cmd"},
		why: "the worker registers workflows and activities only"},
	{pkg: "paycore/internal", skip: []string{"paycore/internal/infra"},
		forbid: []string{"paycore/api", "paycore/db", "paycore/workflows", "paycore/activities", "paycore/worker", "paycore/cmd",
			"paycore/internal/infra", "net/http", "github.com/jackc/", "go.temporal.io/"},
		allow: []string{"github.com/google/uuid", "github.com/mr-tron/base58", "github.com/decred/dcrd/dcrec/secp256k1/v4",
			"github.com/go-json-experiment/json", "github.com/shopspring/decimal", "filippo.io/age", "paycore/internal/",
			// The leaf packages of the chains' message signatures (internal/walletsig): bech32m, keccak, protobuf's wire format.
			"github.com/btcsuite/btcd/btcutil/bech32", "golang.org/x/crypto/sha3", "google.golang.org/protobuf/encoding/protowire"},
		except: []exception{{pkg: "paycore/internal/walletcrypto/jsinterop", imports: []string{"paycore/internal/infra/nodescript"},
			why: "test support only: it runs the official JavaScript wallet libraries, which nodescript installs and starts, against the Go wire formats"},
			{pkg: "paycore/internal/walletsig/jsinterop", imports: []string{"paycore/internal/infra/nodescript"},
				why: "test support only: it runs the JavaScript libraries wallets sign messages with against walletsig"}},
		why: "domain packages (internal/<domain>) and pure helpers (internal/kit) are pure Go over the standard library and small leaf dependencies: no HTTP, no database, no Temporal, no infrastructure"},
	{pkg: "paycore/internal/kit", forbid: []string{"paycore/internal/"}, except: []exception{
		{pkg: "paycore/internal/kit/filecrypt", imports: []string{"paycore/internal/kit/sealbox"},
			why: "file encryption seals its key with the secret box"}},
		why: "pure helpers sit below the domain: they know no domain package"},
	{pkg: "paycore/internal/infra",
		forbid: []string{"paycore/api", "paycore/db", "paycore/workflows", "paycore/activities", "paycore/worker", "paycore/cmd"},
		why:    "infrastructure (network, processes, blob store, mail, telemetry) serves every layer and depends on none of them"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func main() {
	pkgs, err := listPackages()
	if err != nil {
		fmt.Fprintln(os.Stderr, "archlint:", err)
		os.Exit(2)
	}
	violations := check(pkgs, rules)
	clock, err := checkClock(".", clockDirs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "archlint:", err)
		os.Exit(2)
	}
	violations = append(violations, clock...)
	for _, v := range violations {
		fmt.Println(v)
	}
	if len(violations) > 0 {
		os.Exit(1)
	}
}

// listPackages returns every package of the module with its (non-test) imports.
func listPackages() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// check returns one line per import that a rule covering the importing package forbids.
func check(pkgs []pkg, rules []rule) []string {
	var violations []string
	for _, p := range pkgs {
		for _, r := range rules {
			if !inSubtree(r.pkg, p.ImportPath) || slices.ContainsFunc(r.skip, func(s string) bool { return inSubtree(s, p.ImportPath) }) {
				continue
			}
			for _, imp := range p.Imports {
				forbidden := matchesAny(imp, r.forbid)
				notAllowed := r.allow != nil && isModuleOrThirdParty(imp) && !hasPrefix(imp, r.allow)
				if (forbidden || notAllowed) && !excepted(r, p.ImportPath, imp) {
					violations = append(violations, fmt.Sprintf("%s imports %s: %s", p.ImportPath, imp, r.why))
				}
			}
		}
	}
	return violations
}

// inSubtree reports whether path is root or a package below it.
func inSubtree(root, path string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

// matchesAny reports whether imp is named by one of the patterns: a pattern ending in "/"
// matches every path starting with it, any other pattern matches itself and its subpackages.
func matchesAny(imp string, patterns []string) bool {
	for _, f := range patterns {
		if strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f) || inSubtree(f, imp) {
			return true
		}
	}
	return false
}

func excepted(r rule, path, imp string) bool {
	for _, e := range r.except {
		if e.pkg == path && matchesAny(imp, e.imports) {
			return true
		}
	}
	return false
}

func isModuleOrThirdParty(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return strings.Contains(first, ".") || first == module
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
