package db_test

import (
	"go/types"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestGeneratedQueriesArePrivate loads package db as its importers see it and fails when
// an exported function, method or variable mentions the generated query layer
// (gen.Queries) in its type: a parameter, a result, a function-typed parameter's own
// parameters, a field of an exported struct type. The generated queries are reached only
// through db's named operations.
func TestGeneratedQueriesArePrivate(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks package db")
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports | packages.NeedDeps}
	pkgs, err := packages.Load(cfg, "paycore/db")
	if err != nil {
		t.Fatalf("load paycore/db: %v", err)
	}
	if packages.PrintErrors(pkgs) > 0 || len(pkgs) != 1 {
		t.Fatal("paycore/db did not load")
	}
	scope := pkgs[0].Types.Scope()
	var leaks []string
	check := func(what string, typ types.Type) {
		if mentionsQueries(typ, map[types.Type]bool{}) {
			leaks = append(leaks, what+": "+typ.String())
		}
	}
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func, *types.Var:
			check(name, obj.Type())
		case *types.TypeName:
			if named, ok := obj.Type().(*types.Named); ok && !obj.IsAlias() {
				check(name, named.Underlying())
				for i := range named.NumMethods() {
					if m := named.Method(i); m.Exported() {
						check(name+"."+m.Name(), m.Type())
					}
				}
			} else if obj.IsAlias() && isQueries(obj.Type()) {
				leaks = append(leaks, name+": an alias of "+obj.Type().String())
			}
		}
	}
	for _, l := range leaks {
		t.Errorf("exported from package db, the generated query layer: %s", l)
	}
}

// isQueries reports whether t is gen.Queries or a pointer to it.
func isQueries(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Queries" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "paycore/db/internal/gen"
}

// mentionsQueries reports whether t is, or is built from, gen.Queries: through pointers,
// slices, maps, channels, function signatures and the fields of unnamed structs. Named
// types other than gen.Queries are checked where they are declared (their own exported
// names), not followed.
func mentionsQueries(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if isQueries(t) {
		return true
	}
	switch t := types.Unalias(t).(type) {
	case *types.Pointer:
		return mentionsQueries(t.Elem(), seen)
	case *types.Slice:
		return mentionsQueries(t.Elem(), seen)
	case *types.Array:
		return mentionsQueries(t.Elem(), seen)
	case *types.Map:
		return mentionsQueries(t.Key(), seen) || mentionsQueries(t.Elem(), seen)
	case *types.Chan:
		return mentionsQueries(t.Elem(), seen)
	case *types.Signature:
		return mentionsQueries(t.Params(), seen) || mentionsQueries(t.Results(), seen)
	case *types.Tuple:
		for i := range t.Len() {
			if mentionsQueries(t.At(i).Type(), seen) {
				return true
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() && mentionsQueries(f.Type(), seen) {
				return true
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if mentionsQueries(t.Method(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}
