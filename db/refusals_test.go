package db_test

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"

	"paycore/internal/problem/problemtest"
)

const (
	problemPath = "paycore/internal/problem"
	catalogPath = "paycore/internal/catalog"
)

// TestNoRefusalsInDB holds the data layer to persisting: the refusals (codes, messages,
// fields) belong to the domain packages, and a hand-written file of db (or of a package
// below it) neither builds a refusal with the problem package nor names a catalogue error
// code; it calls the domain function that does. Files sqlc generated are not held to it.
func TestNoRefusalsInDB(t *testing.T) {
	builders := problemtest.Builders(t, filepath.Join("..", "internal", "problem"))
	codes := problemtest.Codes(t, filepath.Join("..", "internal", "catalog"))
	if len(builders) == 0 || len(codes) == 0 {
		t.Fatalf("found %d refusal builders in problem and %d codes in catalog; the scan is broken", len(builders), len(codes))
	}
	found := problemtest.HandWritten(t, ".", func(fset *token.FileSet, f *ast.File) []string {
		return refusalsIn(fset, f, builders, codes)
	})
	for _, f := range found {
		t.Errorf("%s: a refusal is the domain's; call the domain package's function instead", f)
	}
}

// refusalsIn lists the uses in f of a refusal builder of the problem package, of a type
// of the problem package constructed literally, or of a catalogue code (a Code constant,
// or a function returning one).
func refusalsIn(fset *token.FileSet, f *ast.File, builders, codes map[string]bool) []string {
	names := map[string]string{} // local name -> import path
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != problemPath && path != catalogPath {
			continue
		}
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			out = append(out, fset.Position(imp.Pos()).String()+": dot-import of "+path)
			continue
		}
		names[name] = path
	}
	if len(names) == 0 {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if !ok || x.Obj != nil { // a local variable, not the package
				return true
			}
			switch names[x.Name] {
			case problemPath:
				if builders[n.Sel.Name] {
					out = append(out, fset.Position(n.Pos()).String()+": problem."+n.Sel.Name)
				}
			case catalogPath:
				if codes[n.Sel.Name] {
					out = append(out, fset.Position(n.Pos()).String()+": catalog."+n.Sel.Name)
				}
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && names[x.Name] != "" && refusalType(sel.Sel.Name) {
					out = append(out, fset.Position(n.Pos()).String()+": "+x.Name+"."+sel.Sel.Name+"{…}")
				}
			}
		}
		return true
	})
	return out
}

// refusalType reports whether a type of problem or catalog named name is a refusal that a
// composite literal would build.
func refusalType(name string) bool {
	switch name {
	case "FieldError", "Refusal", "Wire", "TransitionRefusal":
		return true
	}
	return false
}
