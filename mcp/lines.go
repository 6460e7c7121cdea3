package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one JSON-RPC line (the SDK's own bound).
const maxLine = sdk.DefaultMaxLineLength

// lineTransport is hitl mcp's stdio: newline-delimited JSON-RPC, read a
// line at a time so that a malformed line is answered with a JSON-RPC
// error (parse error -32700, or invalid request -32600) and serving goes
// on. The SDK's own stdio transport ends the session at the first bad
// line; this one hands it only the lines it can read.
type lineTransport struct {
	r io.Reader
	w io.Writer
}

// Connect implements sdk.Transport.
func (t *lineTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	pr, pw := io.Pipe()
	w := &lockedWriter{w: t.w}
	go filterLines(t.r, pw, w)
	return (&sdk.IOTransport{Reader: pr, Writer: w}).Connect(ctx)
}

// filterLines copies the JSON-RPC messages of r to sdkIn, one line each,
// and answers every line that is not one on out. It ends at r's end (then
// closes sdkIn) or when the session stops reading.
func filterLines(r io.Reader, sdkIn *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 || tooLong {
			var reply []byte
			switch {
			case tooLong:
				reply = rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is longer than 16 MiB")
			default:
				reply = checkLine(trimmed)
			}
			if reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					_ = sdkIn.CloseWithError(werr)
					return
				}
			} else if _, werr := sdkIn.Write(append(trimmed, '\n')); werr != nil {
				return // the session is closed
			}
		}
		if err != nil {
			_ = sdkIn.Close()
			return
		}
	}
}

// readLine reads one line (without its newline). A line over maxLine is
// read to its end and dropped (tooLong).
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// checkLine returns the error reply to a line that is not a JSON-RPC
// message (or batch of them), nil for one the session can read.
func checkLine(line []byte) []byte {
	if !json.Valid(line) {
		return rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON")
	}
	msgs := []json.RawMessage{line}
	if line[0] == '[' {
		if err := json.Unmarshal(line, &msgs); err != nil || len(msgs) == 0 {
			return rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty or malformed batch")
		}
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			var withID struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(m, &withID)
			return rpcError(withID.ID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		}
	}
	return nil
}

// rpcError is a JSON-RPC error response line (id null when unknown).
func rpcError(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 || (id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-') {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}

// lockedWriter serializes the session's writes and the filter's error
// replies, a line each.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
