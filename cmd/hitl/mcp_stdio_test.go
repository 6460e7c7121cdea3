package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rpcLine is one JSON-RPC message hitl mcp wrote.
type rpcLine struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// A malformed line on hitl mcp's stdin is answered with a JSON-RPC parse
// error, and the session goes on serving the next, valid request.
func TestMCPMalformedLineIsAParseError(t *testing.T) {
	m := startMain(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		e := &env{stdin: inR, stdout: outW, stderr: io.Discard, getenv: func(k string) string {
			if k == "HITL_URL" {
				return m.URL()
			}
			return ""
		}}
		done <- run(ctx, []string{"mcp", "--run", "stdio-1"}, e)
		_ = outW.Close()
	}()
	replies := make(chan rpcLine, 16)
	go func() {
		lines := bufio.NewScanner(outR)
		for lines.Scan() {
			var l rpcLine
			_ = json.Unmarshal(lines.Bytes(), &l)
			replies <- l
		}
	}()
	next := func(t *testing.T) rpcLine {
		t.Helper()
		select {
		case l := <-replies:
			return l
		case <-ctx.Done():
			t.Fatal("hitl mcp wrote nothing")
			return rpcLine{}
		}
	}
	send := func(t *testing.T, s string) {
		t.Helper()
		wrote := make(chan error, 1)
		go func() { _, err := io.WriteString(inW, s+"\n"); wrote <- err }()
		select {
		case err := <-wrote:
			require.NoError(t, err)
		case <-ctx.Done():
			t.Fatal("hitl mcp stopped reading its stdin")
		}
	}

	t.Run("a line that is not JSON gets -32700 with id null", func(t *testing.T) {
		send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize",`)
		l := next(t)
		require.NotNil(t, l.Error)
		assert.Equal(t, -32700, l.Error.Code)
		assert.Equal(t, "null", string(l.ID))
	})
	t.Run("JSON that is not a JSON-RPC message gets -32600 with its id", func(t *testing.T) {
		send(t, `{"jsonrpc":"1.0","id":2,"method":"ping"}`)
		l := next(t)
		require.NotNil(t, l.Error)
		assert.Equal(t, -32600, l.Error.Code)
		assert.Equal(t, "2", string(l.ID))
	})
	t.Run("the next valid request is served", func(t *testing.T) {
		send(t, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		l := next(t)
		require.Nil(t, l.Error)
		assert.Equal(t, "3", string(l.ID))
		assert.Contains(t, string(l.Result), `"name":"hitl"`)
		assert.Contains(t, string(l.Result), `"version":"`+version()+`"`, "the server reports hitl's build version")
		send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(t, `garbage`)
		require.Equal(t, -32700, next(t).Error.Code)
		send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
		l = next(t)
		require.Nil(t, l.Error)
		assert.Contains(t, string(l.Result), "get_answer")
	})
	require.NoError(t, inW.Close())
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-ctx.Done():
		t.Fatal("hitl mcp did not end with its stdin")
	}
}
