// Command archlint enforces the dependency direction of the packages (README.md,
// "Architecture"): it lists every package's imports with `go list` and fails on any import
// a rule forbids.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

const module = "paycore"

// rule forbids imports (by prefix) for packages matching pkg (exact or "prefix/...").
type rule struct {
	pkg    string
	forbid []string
	allow  []string // when set, third-party imports must match one of these prefixes
	why    string
}

var rules = []rule{
	{pkg: "paycore/api", forbid: []string{"paycore/activities", "paycore/worker", "paycore/cmd"},
		why: "the API starts workflows through workflows/start; it never runs activities"},
	{pkg: "paycore/workflows", forbid: []string{"paycore/db", "paycore/api", "paycore/worker", "github.com/jackc/", "net/http", "os", "math/rand", "go.temporal.io/sdk/client"},
		why: "workflow code must stay deterministic: no database, network, OS or client calls"},
	{pkg: "paycore/workflows/start", forbid: []string{"paycore/db", "paycore/api", "paycore/worker", "paycore/activities"},
		why: "starters only name workflows, ids and inputs"},
	{pkg: "paycore/activities", forbid: []string{"paycore/api", "paycore/workflows", "paycore/worker", "paycore/cmd"},
		why: "activities are called by workflows, never the other way"},
	{pkg: "paycore/db/...", forbid: []string{"paycore/api", "paycore/workflows", "paycore/activities", "paycore/worker", "paycore/cmd"},
		why: "the data layer depends on nothing above it"},
	{pkg: "paycore/worker", forbid: []string{"paycore/api", "paycore/cmd"},
		why: "the worker registers workflows and activities only"},
	{pkg: "paycore/internal/...", forbid: []string{"paycore/api", "paycore/db", "paycore/workflows", "paycore/activities", "paycore/worker", "paycore/cmd"},
		allow: []string{"github.com/google/uuid", "github.com/prometheus/", "github.com/mr-tron/base58", "github.com/wneessen/go-mail", "github.com/go-json-experiment/json", "paycore/internal/"},
		why:   "domain packages are pure Go over the standard library and small leaf dependencies"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func main() {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "archlint: go list:", err)
		os.Exit(2)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var violations []string
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "archlint: decode:", err)
			os.Exit(2)
		}
		for _, r := range rules {
			if !matches(r.pkg, p.ImportPath) || (r.pkg == "paycore/workflows" && strings.HasPrefix(p.ImportPath, "paycore/workflows/")) {
				continue
			}
			for _, imp := range p.Imports {
				for _, f := range r.forbid {
					if imp == f || strings.HasPrefix(imp, strings.TrimSuffix(f, "/")+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f)) {
						violations = append(violations, fmt.Sprintf("%s imports %s: %s", p.ImportPath, imp, r.why))
					}
				}
				if r.allow != nil && isThirdParty(imp) && !hasPrefix(imp, r.allow) {
					violations = append(violations, fmt.Sprintf("%s imports %s: %s", p.ImportPath, imp, r.why))
				}
			}
		}
	}
	for _, v := range violations {
		fmt.Println(v)
	}
	if len(violations) > 0 {
		os.Exit(1)
	}
}

func matches(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func isThirdParty(imp string) bool {
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
