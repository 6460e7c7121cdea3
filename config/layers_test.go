package config_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layers of the house, lowest first. A package may import packages
// of its own layer and of the layers below it, never above: the root and
// the leaf vocabulary packages import only each other and the standard
// library (and third-party code); capabilities hold behaviour over the
// vocabulary; edges speak a technology or a protocol (HTTP, Slack, SMTP,
// bbolt, PostgreSQL, Landlock, files) and use capabilities; wiring
// (cmd) builds everything. Test support is imported only by tests.
type layer int

const (
	vocabulary layer = iota
	capability
	edge
	wiring
	testSupport
)

func (l layer) String() string {
	return [...]string{"vocabulary", "capability", "edge", "wiring", "test support"}[l]
}

const module = "github.com/hitlbot/hitl"

// application is what runs the service: the application itself, the HTTP
// API server, and the store backends. The Go client SDK, the wire format
// it shares with the server, and configuration must import none of it.
var application = map[string]bool{"service": true, "api": true, "store": true, "postgres": true}

// layers is the one table of every package's layer (by its path in the
// module, "" for the root). docs/architecture.md shows it
// (TestLayersShownInArchitecture); a package missing here fails.
var layers = map[string]layer{
	"":                       vocabulary,
	"fault":                  vocabulary,
	"auth":                   vocabulary,
	"steer":                  vocabulary,
	"uid":                    vocabulary,
	"sketch":                 vocabulary,
	"access":                 capability,
	"policy":                 capability,
	"shell":                  capability,
	"visible":                capability,
	"runhandle":              capability,
	"observe":                capability,
	"notify":                 capability,
	"seal":                   capability,
	"ratelimit":              capability,
	"diff":                   capability,
	"eventstream":            capability,
	"service":                capability,
	"api":                    edge,
	"api/wire":               edge,
	"client":                 edge,
	"web":                    edge,
	"slack":                  edge,
	"blocks":                 edge,
	"email":                  edge,
	"webhook":                edge,
	"mcp":                    edge,
	"hook":                   edge,
	"watch":                  edge,
	"metrics":                edge,
	"sweeper":                edge,
	"oidc":                   edge,
	"sandbox":                edge,
	"store":                  edge,
	"postgres":               edge,
	"config":                 edge,
	"cmd/hitl":               wiring,
	"internal/bashdiff":      testSupport,
	"internal/clocktest":     testSupport,
	"internal/eventtest":     testSupport,
	"internal/memstore":      testSupport,
	"internal/oidctest":      testSupport,
	"internal/pgtest":        testSupport,
	"internal/principaltest": testSupport,
	"internal/slackfake":     testSupport,
	"internal/statstest":     testSupport,
	"internal/storetest":     testSupport,
}

// noApplication are the packages that must not import the application:
// every edge. Each takes the narrow interfaces it declares (or the root's
// service interfaces), filled by the wiring (cmd/hitl/adapters.go); the
// Go client SDK (client) and the wire format it shares with the server
// (api/wire) above all must work without the service.
var noApplication = func() map[string]bool {
	m := map[string]bool{}
	for p, l := range layers {
		if l == edge {
			m[p] = true
		}
	}
	return m
}()

// climbing is today's imports that break the layers, each with the item
// of issue 36 that removes it. The list only shrinks: a new climbing
// import fails, and so does an entry whose import is gone.
var climbing = map[[2]string]string{}

// importGraph reads the non-test Go files of the module and returns, per
// package (path in the module), the module packages it imports.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string]map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "clients" || name == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" && filepath.Dir(path) != filepath.Join(repoRoot, "cmd", "hitl") {
			return nil
		}
		rel, err := filepath.Rel(repoRoot, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = ""
		}
		if graph[pkg] == nil {
			graph[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			switch {
			case p == module:
				graph[pkg][""] = true
			case strings.HasPrefix(p, module+"/"):
				graph[pkg][strings.TrimPrefix(p, module+"/")] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	out := map[string][]string{}
	for pkg, imps := range graph {
		out[pkg] = []string{}
		for imp := range imps {
			out[pkg] = append(out[pkg], imp)
		}
		sort.Strings(out[pkg])
	}
	return out
}

// layerFaults returns what breaks the layers in graph: a package with no
// layer, an import that climbs to a higher layer (or from production
// code to test support), and an import of the application by a package
// that must not. Imports in allowed are not reported; an allowed import
// the graph no longer holds is (the list only shrinks).
func layerFaults(graph map[string][]string, layers map[string]layer, noApp map[string]bool, allowed map[[2]string]string) []string {
	var out []string
	seen := map[[2]string]bool{}
	show := func(p string) string {
		if p == "" {
			return "the root"
		}
		return p
	}
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		from, ok := layers[pkg]
		if !ok {
			out = append(out, fmt.Sprintf("%s has no layer: add it to the layers table", show(pkg)))
			continue
		}
		for _, imp := range graph[pkg] {
			to, ok := layers[imp]
			if !ok {
				continue // reported as its own package
			}
			edgeKey := [2]string{pkg, imp}
			var why string
			switch {
			case to == testSupport && from != testSupport:
				why = fmt.Sprintf("%s (%s) imports test support %s", show(pkg), from, show(imp))
			case to > from && from != testSupport:
				why = fmt.Sprintf("%s (%s) imports %s (%s), a higher layer", show(pkg), from, show(imp), to)
			case noApp[pkg] && application[imp]:
				why = fmt.Sprintf("%s must not import the application (%s)", show(pkg), imp)
			default:
				continue
			}
			if _, ok := allowed[edgeKey]; ok {
				seen[edgeKey] = true
				continue
			}
			out = append(out, why)
		}
	}
	for k, item := range allowed {
		if !seen[k] {
			out = append(out, fmt.Sprintf("%s no longer imports %s (%s): remove it from the climbing list", show(k[0]), show(k[1]), item))
		}
	}
	sort.Strings(out)
	return out
}

// Every package has a layer, and no import climbs beyond today's
// shrinking list.
func TestLayers(t *testing.T) {
	graph := importGraph(t)
	require.Contains(t, graph, "", "the root package is read")
	require.Contains(t, graph, "cmd/hitl", "the wiring is read")
	for _, f := range layerFaults(graph, layers, noApplication, climbing) {
		t.Error(f)
	}
	for pkg := range layers {
		assert.Contains(t, graph, pkg, "the layers table names %q, which is no package of the module", pkg)
	}
}

// folderFaults returns what breaks the rule that test support lives apart
// from production code: a package under internal/ that is not test
// support, and test support outside internal/.
func folderFaults(layers map[string]layer) []string {
	var out []string
	for pkg, l := range layers {
		inside := strings.HasPrefix(pkg, "internal/")
		switch {
		case inside && l != testSupport:
			out = append(out, fmt.Sprintf("%s (%s) is under internal/, which holds test support only: move it out", pkg, l))
		case !inside && l == testSupport:
			out = append(out, fmt.Sprintf("%s is test support outside internal/: move it under internal/", pkg))
		}
	}
	sort.Strings(out)
	return out
}

// internal/ holds test support and nothing else, so that a production
// helper is found by its name and a test fake is never taken for one.
func TestInternalHoldsOnlyTestSupport(t *testing.T) {
	assert.Empty(t, folderFaults(layers))
	for name, c := range map[string]struct {
		table map[string]layer
		want  []string
	}{
		"test support under internal/": {map[string]layer{"internal/pgtest": testSupport, "uid": vocabulary}, nil},
		"a production helper under internal/": {map[string]layer{"internal/uid": vocabulary},
			[]string{"internal/uid (vocabulary) is under internal/, which holds test support only: move it out"}},
		"test support outside internal/": {map[string]layer{"slackfake": testSupport},
			[]string{"slackfake is test support outside internal/: move it under internal/"}},
	} {
		assert.Equal(t, c.want, folderFaults(c.table), name)
	}
}

// The rule itself: each kind of climbing import is reported, a listed
// one is not, and a listed one that is gone is.
func TestLayerFaults(t *testing.T) {
	table := map[string]layer{"": vocabulary, "fault": vocabulary, "policy": capability, "service": capability,
		"webhook": edge, "client": edge, "api": edge, "slack": edge, "web": edge, "cmd/hitl": wiring, "internal/memstore": testSupport}
	noApp := map[string]bool{"client": true, "slack": true}
	cases := []struct {
		name    string
		graph   map[string][]string
		allowed map[[2]string]string
		want    []string
	}{
		{"clean", map[string][]string{"": {"fault"}, "policy": {"", "fault"}, "web": {"service", "policy"}, "cmd/hitl": {"web", "service"}}, nil, nil},
		{"root to capability", map[string][]string{"": {"policy"}}, nil, []string{"the root (vocabulary) imports policy (capability), a higher layer"}},
		{"root to edge", map[string][]string{"": {"webhook"}}, nil, []string{"the root (vocabulary) imports webhook (edge), a higher layer"}},
		{"capability to edge", map[string][]string{"service": {"webhook"}}, nil, []string{"service (capability) imports webhook (edge), a higher layer"}},
		{"edge to wiring", map[string][]string{"web": {"cmd/hitl"}}, nil, []string{"web (edge) imports cmd/hitl (wiring), a higher layer"}},
		{"SDK to application", map[string][]string{"client": {"service"}}, nil, []string{"client must not import the application (service)"}},
		{"SDK to the API server", map[string][]string{"client": {"api"}}, nil, []string{"client must not import the application (api)"}},
		{"edge to application", map[string][]string{"slack": {"service"}}, nil, []string{"slack must not import the application (service)"}},
		{"production to test support", map[string][]string{"cmd/hitl": {"internal/memstore"}}, nil, []string{"cmd/hitl (wiring) imports test support internal/memstore"}},
		{"test support imports anything", map[string][]string{"internal/memstore": {"cmd/hitl"}}, nil, nil},
		{"no layer", map[string][]string{"newpkg": {}}, nil, []string{"newpkg has no layer: add it to the layers table"}},
		{"listed", map[string][]string{"": {"policy"}}, map[[2]string]string{{"", "policy"}: "item 1"}, nil},
		{"listed but gone", map[string][]string{"": {}}, map[[2]string]string{{"", "policy"}: "item 1"}, []string{"the root no longer imports policy (item 1): remove it from the climbing list"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, layerFaults(c.graph, table, noApp, c.allowed))
		})
	}
}

// docs/architecture.md shows the layers table, row for row.
func TestLayersShownInArchitecture(t *testing.T) {
	text := readManual(t, architecture)
	const head = "## The layers\n"
	i := strings.Index(text, head)
	require.GreaterOrEqual(t, i, 0, "%s has a %q section", architecture, strings.TrimSpace(head))
	section := text[i+len(head):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	got := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) != 2 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		l := strings.TrimSpace(cells[0])
		for _, p := range strings.Split(cells[1], ",") {
			p = strings.Trim(strings.TrimSpace(p), "`")
			if p == "hitl (root)" {
				p = ""
			}
			got[p] = l
		}
	}
	want := map[string]string{}
	for p, l := range layers {
		want[p] = l.String()
	}
	assert.Equal(t, want, got, "the %q table of %s shows the layers table of config/layers_test.go", strings.TrimSpace(head), architecture)
}
