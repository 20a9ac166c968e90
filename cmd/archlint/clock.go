package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// clockDirs are the layers that read the time from their injected clock (api.Deps.Now,
// activities.Options.Now) and pass it down to db as a value: none of them reads the wall
// clock itself. A line that measures elapsed time only says so with a comment containing
// clockException.
var clockDirs = []string{"api", "db", "activities"}

// clockException marks a time.Now call that measures elapsed time, not the time.
const clockException = "elapsed time"

// checkClock returns one line per time.Now call in the non-test, hand-written Go files
// under dirs (below root; test-support packages such as dbtest aside), except on lines
// marked with clockException. time.Now as a value (a default clock) is no call.
func checkClock(root string, dirs []string) ([]string, error) {
	var violations []string
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && strings.HasSuffix(d.Name(), "test") { // test support (dbtest, apitest)
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			found, err := clockCalls(path)
			violations = append(violations, found...)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s: %w", dir, err)
		}
	}
	return violations, nil
}

// clockCalls lists the unmarked time.Now calls of one file; a generated file has none.
func clockCalls(path string) ([]string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	marked := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.Contains(c.Text, clockException) {
				marked[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr) // time.Now as a value is the clock being injected
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Now" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == "time" {
			pos := fset.Position(sel.Pos())
			if !marked[pos.Line] {
				out = append(out, fmt.Sprintf("%s:%d: time.Now: read the injected clock and pass the time down (docs/api-and-db.md)", path, pos.Line))
			}
		}
		return true
	})
	return out, nil
}
