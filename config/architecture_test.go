package config_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/architecture.md follows an answer and a pause through the files
// and functions they cross. These tests hold it to the code: a file it
// names exists, and a function or method it names beside a file in the
// paths is declared in that file.

const architecture = "docs/architecture.md"

var (
	// goFile is a Go file path in backticks: `service/service.go`.
	goFile = regexp.MustCompile("`([\\w./-]+\\.go)`")
	// named is a Go file in backticks followed by the parenthesis that
	// names what it declares: `service/service.go` (`Questions.Answer`).
	named = regexp.MustCompile("`([\\w./-]+\\.go)`\\s+\\(([^()]*)\\)")
	// names is what that parenthesis must hold: backticked names, a
	// function or Type.Method, separated by commas.
	names    = regexp.MustCompile("^`[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)?`(?:,\\s+`[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)?`)*$")
	pathHead = regexp.MustCompile(`(?m)^## (.*)$`)
)

// architecturePaths returns the page's sections that follow a request
// through the code: "## The path of …" to the next other "## " heading
// (their "###" subsections included).
func architecturePaths(text string) string {
	var out strings.Builder
	heads := pathHead.FindAllStringSubmatchIndex(text, -1)
	for i, h := range heads {
		if !strings.HasPrefix(text[h[2]:h[3]], "The path of") {
			continue
		}
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		out.WriteString(text[h[0]:end])
	}
	return out.String()
}

// declared returns the functions and methods (as Type.Method) the Go
// file at path declares.
func declared(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	require.NoError(t, err, "parse %s", path)
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Recv == nil || len(fd.Recv.List) == 0 {
			out[fd.Name.Name] = true
			continue
		}
		if recv := receiverType(fd.Recv.List[0].Type); recv != "" {
			out[recv+"."+fd.Name.Name] = true
		}
	}
	return out
}

// receiverType is the name of a method's receiver type: T for T, *T,
// T[P] and *T[P].
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// Every Go file the page names exists.
func TestArchitectureFilesExist(t *testing.T) {
	text := readManual(t, architecture)
	n := 0
	for _, m := range goFile.FindAllStringSubmatch(text, -1) {
		n++
		_, err := os.Stat(filepath.Join(repoRoot, m[1]))
		assert.NoError(t, err, "%s names %s, which is no file of the repository", architecture, m[1])
	}
	assert.Greater(t, n, 50, "%s names the files it describes", architecture)
}

// In the paths of an answer and a pause, every function or method named
// in parentheses right after a file is declared in that file.
func TestArchitecturePathsMatchTheCode(t *testing.T) {
	paths := architecturePaths(readManual(t, architecture))
	require.Contains(t, paths, "## The path of an answer")
	require.Contains(t, paths, "## The path of a pause")
	files := map[string]map[string]bool{}
	n := 0
	for _, m := range named.FindAllStringSubmatch(paths, -1) {
		file, inner := m[1], strings.TrimSpace(m[2])
		if !names.MatchString(inner) {
			t.Errorf("%s: after `%s` write only the names it declares, as (`Func`, `Type.Method`): found (%s)", architecture, file, inner)
			continue
		}
		decls, ok := files[file]
		if !ok {
			if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
				t.Errorf("%s names %s, which is no file of the repository", architecture, file)
				files[file] = nil
				continue
			}
			decls = declared(t, filepath.Join(repoRoot, file))
			files[file] = decls
		}
		if decls == nil {
			continue
		}
		for _, name := range strings.Split(inner, ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			n++
			assert.True(t, decls[name], "%s says %s declares %s; it does not (methods are Type.Method)", architecture, file, name)
		}
	}
	assert.Greater(t, n, 60, "the paths name the functions they cross")
}

// The check of a file's declarations sees functions, methods of value
// and pointer receivers and of generic types, and nothing else.
func TestArchitectureDeclared(t *testing.T) {
	dir := t.TempDir()
	src := `package x
type T struct{}
type G[P any] struct{}
type H[P, Q any] struct{}
var V = 1
func F() {}
func (T) Value() {}
func (*T) Pointer() {}
func (g *G[P]) Generic() {}
func (H[P, Q]) Two() {}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600))
	got := declared(t, filepath.Join(dir, "x.go"))
	want := map[string]bool{"F": true, "T.Value": true, "T.Pointer": true, "G.Generic": true, "H.Two": true}
	assert.Equal(t, want, got)
}
