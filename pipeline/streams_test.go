package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoLiteralStreams: outside tests, every call of Seed, Rand and
// RandSource names its stream by a declared Stream (a constant of the
// component that draws it, or StageStream), never by a string literal, so
// that two places that must draw the same stream cannot drift apart by a
// typo; and names every fixed part of its key by a declared Key, never
// by a literal, whether passed to the call or gathered in a []Key first.
func TestNoLiteralStreams(t *testing.T) {
	if raceEnabled {
		t.Skip("static: one goroutine, nothing for the race detector (make test-norace runs it)")
	}
	root := ".."
	fset := token.NewFileSet()
	sites := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "out" || n == "python") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		inPipeline := filepath.Dir(path) == "."
		if !inPipeline && !strings.Contains(string(src), "pipeline.") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if keys, ok := n.(*ast.CompositeLit); ok && keySlice(keys.Type, inPipeline) {
				for _, e := range keys.Elts {
					if lit, ok := e.(*ast.BasicLit); ok {
						t.Errorf("%s: key %s is a literal: name it by a declared pipeline.Key", fset.Position(lit.Pos()), lit.Value)
					}
				}
				return true
			}
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 || !streamFunc(call.Fun, inPipeline) {
				return true
			}
			sites++
			if lit, ok := call.Args[1].(*ast.BasicLit); ok {
				t.Errorf("%s: stream %s is a literal: name it by a declared pipeline.Stream", fset.Position(call.Pos()), lit.Value)
			}
			for _, a := range call.Args[2:] {
				if lit, ok := a.(*ast.BasicLit); ok {
					t.Errorf("%s: key %s is a literal: name it by a declared pipeline.Key", fset.Position(lit.Pos()), lit.Value)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sites == 0 {
		t.Fatal("found no call of Seed, Rand or RandSource: the walk is broken")
	}
	t.Logf("%d stream sites", sites)
}

// keySlice reports whether typ is []pipeline.Key ([]Key inside package
// pipeline).
func keySlice(typ ast.Expr, inPipeline bool) bool {
	arr, ok := typ.(*ast.ArrayType)
	if !ok || arr.Len != nil {
		return false
	}
	switch e := arr.Elt.(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "pipeline" && e.Sel.Name == "Key"
	case *ast.Ident:
		return inPipeline && e.Name == "Key"
	}
	return false
}

// streamFunc reports whether fun is pipeline.Seed, Rand or RandSource
// (unqualified inside package pipeline).
func streamFunc(fun ast.Expr, inPipeline bool) bool {
	var name string
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		if !ok || x.Name != "pipeline" {
			return false
		}
		name = f.Sel.Name
	case *ast.Ident:
		if !inPipeline {
			return false
		}
		name = f.Name
	default:
		return false
	}
	return name == "Seed" || name == "Rand" || name == "RandSource"
}
