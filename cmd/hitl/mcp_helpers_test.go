package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The MCP server is driven by the official TypeScript SDK's client
// (mcp/testdata/client.mjs, installed with npm ci), which spawns this test
// binary as `hitl mcp` (TestHitlChild) over stdio.

const childArgsEnv = "HITL_TEST_CHILD_ARGS"

// TestHitlChild is not a test: it runs this binary as the hitl command
// with the arguments in HITL_TEST_CHILD_ARGS, for a test's child process.
func TestHitlChild(t *testing.T) {
	raw := os.Getenv(childArgsEnv)
	if raw == "" {
		t.Skip("runs only as the hitl child process of another test")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, args, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
}

// mcpEvent is one line the client script writes.
type mcpEvent struct {
	ID       string          `json:"id"`
	Event    string          `json:"event"`
	Result   json.RawMessage `json:"result"`
	Progress struct {
		Progress float64 `json:"progress"`
		Message  string  `json:"message"`
	} `json:"progress"`
	Message string `json:"message"`
	Code    any    `json:"code"`
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// mcpClient is a running client script with its hitl mcp.
type mcpClient struct {
	t      *testing.T
	stdin  io.Writer
	events chan mcpEvent
	mu     sync.Mutex
	held   map[string][]mcpEvent // read while expecting another id
	stderr syncBuffer
}

// nodeClient starts the client script, which starts `hitl mcp ARGS` with
// HITL_URL pointing at m. It skips the test when node is not installed.
func nodeClient(t *testing.T, m *Main, args ...string) *mcpClient {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP server is tested with the official TypeScript SDK client (Node.js 18+)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "mcp", "testdata"))
	require.NoError(t, err)
	installClient(t, dir)
	self, err := os.Executable()
	require.NoError(t, err)
	childArgs, _ := json.Marshal(append([]string{"mcp"}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), self, "-test.run=^TestHitlChild$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(childArgs), "HITL_URL="+m.URL(), "HITL_TOKEN=", "USER=tester")
	c := &mcpClient{t: t, events: make(chan mcpEvent, 256), held: map[string][]mcpEvent{}}
	cmd.Stderr = &c.stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c.stdin = stdin
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev mcpEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				c.events <- ev
			}
		}
	}()
	t.Cleanup(func() {
		c.send(map[string]any{"op": "close"})
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			<-done
		}
		cancel()
		if t.Failed() {
			t.Logf("client and server stderr:\n%s", c.stderr.String())
		}
	})
	c.expect("", "connected")
	return c
}

// installClient runs npm ci in dir once, when the SDK is not installed
// (CI installs it first: .ci/run).
func installClient(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err == nil {
		return
	}
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "the MCP client SDK is not installed in %s and npm is missing: run npm ci there", dir)
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "npm ci in %s: %s", dir, out)
}

func (c *mcpClient) send(cmd map[string]any) {
	b, _ := json.Marshal(cmd)
	_, _ = c.stdin.Write(append(b, '\n'))
}

// call starts a tools/call; its events come with id.
func (c *mcpClient) call(id, tool string, args map[string]any, opts ...map[string]any) {
	cmd := map[string]any{"id": id, "op": "call", "name": tool, "arguments": args}
	for _, o := range opts {
		for k, v := range o {
			cmd[k] = v
		}
	}
	c.send(cmd)
}

// expect returns the next event of id, which must be of kind.
func (c *mcpClient) expect(id, kind string) mcpEvent {
	c.t.Helper()
	ev := c.next(id)
	require.Equal(c.t, kind, ev.Event, "event of %q: %+v", id, ev)
	return ev
}

// next returns the next event of id (others are held for later).
func (c *mcpClient) next(id string) mcpEvent {
	c.t.Helper()
	c.mu.Lock()
	if q := c.held[id]; len(q) > 0 {
		c.held[id] = q[1:]
		c.mu.Unlock()
		return q[0]
	}
	c.mu.Unlock()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				c.t.Fatalf("the client ended while waiting for %q:\n%s", id, c.stderr.String())
			}
			if ev.ID == id {
				return ev
			}
			c.mu.Lock()
			c.held[ev.ID] = append(c.held[ev.ID], ev)
			c.mu.Unlock()
		case <-deadline:
			c.t.Fatalf("no event for %q:\n%s", id, c.stderr.String())
		}
	}
}

// result waits for the result of call id (skipping its progress).
func (c *mcpClient) result(id string) toolResult {
	c.t.Helper()
	for {
		ev := c.next(id)
		switch ev.Event {
		case "progress":
			continue
		case "result":
			var r toolResult
			require.NoError(c.t, json.Unmarshal(ev.Result, &r))
			return r
		}
		c.t.Fatalf("call %q failed: %s (%v)", id, ev.Message, ev.Code)
	}
}

// callResult calls tool and waits for its result.
func (c *mcpClient) callResult(id, tool string, args map[string]any) toolResult {
	c.t.Helper()
	c.call(id, tool, args)
	return c.result(id)
}
