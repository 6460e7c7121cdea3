package config_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootFileGraph reads the root package's files (tests left out) and
// returns, per file, the files whose top-level names (types, functions,
// constants, variables) it writes, and which names. A name is read as
// a reader reads it: any identifier spelled as another file's top-level
// name counts, a struct field or a method of that spelling too, except
// after a dot (x.Name is the selector's business). That is how a
// newcomer (and farm-studio) finds where a name comes from.
func rootFileGraph(t *testing.T, dir string) map[string]map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	files := map[string]*ast.File{}
	declaredIn := map[string]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		name := filepath.Base(p)
		files[name] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredIn[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declaredIn[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								declaredIn[n.Name] = name
							}
						}
					}
				}
			}
		}
	}
	graph := map[string]map[string][]string{}
	for name, f := range files {
		selected := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				selected[s.Sel] = true
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || selected[id] {
				return true
			}
			to, ok := declaredIn[id.Name]
			if !ok || to == name {
				return true
			}
			if graph[name] == nil {
				graph[name] = map[string][]string{}
			}
			if !slices.Contains(graph[name][to], id.Name) {
				graph[name][to] = append(graph[name][to], id.Name)
			}
			return true
		})
	}
	return graph
}

// circles lists each edge of graph that lies on a circle, as "a -> b: names".
func circles(graph map[string]map[string][]string) []string {
	reaches := func(from, to string) bool {
		seen := map[string]bool{from: true}
		next := []string{from}
		for len(next) > 0 {
			x := next[len(next)-1]
			next = next[:len(next)-1]
			for y := range graph[x] {
				if y == to {
					return true
				}
				if !seen[y] {
					seen[y] = true
					next = append(next, y)
				}
			}
		}
		return false
	}
	var out []string
	for a, tos := range graph {
		for b, names := range tos {
			if reaches(b, a) {
				sort.Strings(names)
				out = append(out, a+" -> "+b+": "+strings.Join(names, ", "))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRootFilesStandInLayers holds the root's files to what the packages
// are held to (TestLayers): each file can be read after the files whose
// names it uses, with no two files naming each other, directly or round
// a circle. A newcomer reads the vocabulary bottom up; farm-studio draws
// the same order with no arrow running back up.
func TestRootFilesStandInLayers(t *testing.T) {
	assert.Empty(t, circles(rootFileGraph(t, repoRoot)),
		"the root's files name each other in a circle: move the declaration to the file below, or rename a field spelled as another file's type")
}

func TestRootFileCirclesAreFound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("package hitl\n\n"+src), 0o644))
	}
	write("question.go", "type Question struct{ Answer *Response }\n")
	write("response.go", "type Response struct{ Value string }\n")
	assert.Empty(t, circles(rootFileGraph(t, dir)), "question.go uses response.go only")
	// a method of Question in response.go that names it: a circle
	write("response.go", "type Response struct{ Value string }\n\nfunc (r *Response) For(q *Question) bool { return q != nil }\n")
	assert.Equal(t, []string{"question.go -> response.go: Response", "response.go -> question.go: Question"}, circles(rootFileGraph(t, dir)))
	// a field spelled as another file's type reads as a use of it
	write("response.go", "type Response struct{ Question string }\n")
	assert.Equal(t, []string{"question.go -> response.go: Response", "response.go -> question.go: Question"}, circles(rootFileGraph(t, dir)))
	// after a dot it is the selector's
	write("response.go", "type Response struct{ Value string }\n\nfunc (r *Response) Of(x struct{ Value string }) string { return x.Value }\n")
	assert.Empty(t, circles(rootFileGraph(t, dir)))
}
