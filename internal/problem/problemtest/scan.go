package problemtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The guards that hold a layer to building no refusal (db) or only those of its own
// concern (api) read the source: what the problem package builds refusals with, what the
// catalogue's codes are, and which files were generated.

// Builders are the functions of the problem package, whose source is in dir, that return
// a refusal: a *FieldError, a *Refusal or an error.
func Builders(t testing.TB, dir string) map[string]bool {
	t.Helper()
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

// Codes are the names of the Code constants of the catalog package, whose source is in
// dir, and of its functions that return a Code.
func Codes(t testing.TB, dir string) map[string]bool {
	t.Helper()
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

// Generated reports whether f carries the "Code generated … DO NOT EDIT." header.
func Generated(f *ast.File) bool {
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

// parseDir parses the non-test Go files of dir.
func parseDir(t testing.TB, dir string) []*ast.File {
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

// HandWritten parses every hand-written, non-test Go file under root (generated ones
// aside), lets find list what it finds in each, and returns the findings sorted: the walk
// every refusal guard makes.
func HandWritten(t testing.TB, root string, find func(fset *token.FileSet, f *ast.File) []string) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if !Generated(f) {
			found = append(found, find(fset, f)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	return found
}
