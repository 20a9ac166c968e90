package db_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
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
	builders := problemBuilders(t, filepath.Join("..", "internal", "problem"))
	codes := catalogCodes(t, filepath.Join("..", "internal", "catalog"))
	if len(builders) == 0 || len(codes) == 0 {
		t.Fatalf("found %d refusal builders in problem and %d codes in catalog; the scan is broken", len(builders), len(codes))
	}
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if generated(f) {
			return nil
		}
		found = append(found, refusalsIn(fset, f, builders, codes)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: a refusal is the domain's; call the domain package's function instead", f)
	}
}

// generated reports whether f carries the "Code generated … DO NOT EDIT." header.
func generated(f *ast.File) bool {
	for _, c := range f.Comments {
		if c.Pos() >= f.Package {
			break
		}
		for _, l := range c.List {
			if strings.HasPrefix(l.Text, "// Code generated ") && strings.HasSuffix(l.Text, " DO NOT EDIT.") {
				return true
			}
		}
	}
	return false
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

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// problemBuilders are the functions of the problem package that return a refusal: a
// *FieldError, a *Refusal or an error.
func problemBuilders(t *testing.T, dir string) map[string]bool {
	out := map[string]bool{}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil {
				continue
			}
			for _, r := range fn.Type.Results.List {
				if typeName(r.Type) == "FieldError" || typeName(r.Type) == "Refusal" || typeName(r.Type) == "error" {
					out[fn.Name.Name] = true
				}
			}
		}
	}
	return out
}

// catalogCodes are the names of catalog's Code constants and of its functions that
// return a Code.
func catalogCodes(t *testing.T, dir string) map[string]bool {
	out := map[string]bool{}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil || d.Type.Results == nil {
					continue
				}
				for _, r := range d.Type.Results.List {
					if typeName(r.Type) == "Code" {
						out[d.Name.Name] = true
					}
				}
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				var typ ast.Expr // the type a spec without type and values repeats
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					switch {
					case vs.Type != nil:
						typ = vs.Type
					case len(vs.Values) > 0:
						typ = nil
						if call, ok := vs.Values[0].(*ast.CallExpr); ok {
							typ = call.Fun // a conversion, Code("…")
						}
					}
					if typ != nil && typeName(typ) == "Code" {
						for _, n := range vs.Names {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}

// typeName is the name of the type expression e without pointers: "Code" for Code and
// *Code, "" for anything but a named type of the package or a predeclared one.
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
