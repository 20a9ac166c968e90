package api_test

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"

	"paycore/internal/problem/problemtest"
)

const catalogPath = "paycore/internal/catalog"

// transportCodes are the only catalogue codes the API builds refusals with itself, each
// for a concern of HTTP, of the API's own authentication or of the service's own
// infrastructure, never a domain rule's. Keep it short: a code a domain rule refuses with
// is built by the domain package that owns the rule, and the handler returns its refusal.
var transportCodes = map[string]string{
	"Unauthorized":          "authentication at the edge: API credentials (HTTP Basic), agents' bearer tokens",
	"Forbidden":             "authorization at the edge: a token's permission for a route, sandbox routes for production platforms",
	"NotFound":              "routing: no such route, no such documentation file",
	"MethodNotAllowed":      "routing: the route does not take the method",
	"PayloadTooLarge":       "a request body larger than the limit",
	"InvalidInput":          "decoding a request: malformed JSON, query strings or multipart bodies, a Content-Type the route does not read",
	"NotImplemented":        "a Transfer-Encoding the listener does not speak",
	"IdempotencyKeyReused":  "the API's Idempotency-Key protocol",
	"IdempotencyInProgress": "the API's Idempotency-Key protocol",
	"Unavailable":           "the service's own infrastructure missing or not answering (document storage, starting a workflow)",
	"Internal":              "the opaque 500 of an error no refusal explains",
}

// TestNoDomainRefusalsInAPI holds the handlers to decode, call and render: a hand-written
// file of api (or of a package below it) names a catalogue error code only to build a
// refusal of its own concern (transportCodes); a refusal of a domain rule (its code,
// message and details) is built by the domain package that owns the rule, as in db
// (TestNoRefusalsInDB). Naming a code is not building a refusal in the status table
// (errors.go's statusOf) nor in a comparison with the code of a refusal already made.
func TestNoDomainRefusalsInAPI(t *testing.T) {
	codes := problemtest.Codes(t, filepath.Join("..", "internal", "catalog"))
	if len(codes) == 0 {
		t.Fatal("found no codes in catalog; the scan is broken")
	}
	for c := range transportCodes {
		if !codes[c] {
			t.Fatalf("transportCodes lists %s, which is no catalogue code", c)
		}
	}
	used := map[string]bool{}
	found := problemtest.HandWritten(t, ".", func(fset *token.FileSet, f *ast.File) []string {
		return domainCodesIn(fset, f, codes, used)
	})
	for _, f := range found {
		t.Errorf("%s: a domain rule's refusal; build it in the domain package that owns the rule and return it", f)
	}
	for c := range transportCodes {
		if !used[c] {
			t.Errorf("transportCodes lists %s, which api no longer builds a refusal with: drop it from the list", c)
		}
	}
}

// domainCodesIn lists the uses in f of a catalogue code (a Code constant, or a function
// returning one) other than transportCodes, of a conversion to a Code, and of a string
// literal as a Code member; used records the transport codes f names.
func domainCodesIn(fset *token.FileSet, f *ast.File, codes, used map[string]bool) []string {
	var out []string
	catalog := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != catalogPath {
			continue
		}
		catalog = "catalog"
		if imp.Name != nil {
			catalog = imp.Name.Name
		}
		if catalog == "." {
			out = append(out, fset.Position(imp.Pos()).String()+": dot-import of "+catalogPath)
		}
	}
	notBuilt := notBuilding(f)
	ast.Inspect(f, func(n ast.Node) bool {
		if notBuilt[n] {
			return false
		}
		switch n := n.(type) {
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if !ok || x.Obj != nil || x.Name != catalog { // a local variable, not the package
				return true
			}
			switch {
			case transportCodes[n.Sel.Name] != "":
				used[n.Sel.Name] = true
			case codes[n.Sel.Name]:
				out = append(out, fset.Position(n.Pos()).String()+": "+catalog+"."+n.Sel.Name)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && x.Name == catalog {
					out = append(out, fset.Position(n.Pos()).String()+": "+catalog+".Code(…), a code made up in api")
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Code" {
				if v, ok := n.Value.(*ast.BasicLit); ok && v.Kind == token.STRING {
					out = append(out, fset.Position(n.Pos()).String()+": Code: "+v.Value+", a code made up in api")
				}
			}
		}
		return true
	})
	return out
}

// notBuilding are the nodes of f that name codes without building a refusal: the status
// table (the value of errors.go's statusOf), and the operands of comparisons (==, !=, an
// expression switch's cases) with a code of a refusal already made.
func notBuilding(f *ast.File) map[ast.Node]bool {
	out := map[ast.Node]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if name.Name == "statusOf" && i < len(n.Values) {
					out[n.Values[i]] = true
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				compared(out, n.X, n.Y)
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				return true
			}
			for _, s := range n.Body.List {
				compared(out, s.(*ast.CaseClause).List...)
			}
		}
		return true
	})
	return out
}

// compared adds to out the operands of a comparison that name a code (pkg.Name), and no
// other: a refusal built inside a comparison is still built.
func compared(out map[ast.Node]bool, operands ...ast.Expr) {
	for _, e := range operands {
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if _, ok := sel.X.(*ast.Ident); ok {
				out[e] = true
			}
		}
	}
}
