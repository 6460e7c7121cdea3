package slackfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// request is a parsed Web API request. Slack takes arguments as a
// form-encoded body, a JSON body (token only in the Authorization header),
// or a query string; slack-go uses all three.
type request struct {
	method string
	http   *http.Request
	body   []byte
	params url.Values
	json   map[string]json.RawMessage // nil unless the body is JSON
	token  string
}

// str returns a parameter as a string ("" if absent).
func (r *request) str(key string) string { return r.params.Get(key) }

// has reports whether a parameter was sent at all.
func (r *request) has(key string) bool { _, ok := r.params[key]; return ok }

// rawJSON returns a JSON-valued parameter such as blocks or view. In JSON
// bodies it is the value itself; in forms it is a JSON-encoded string.
func (r *request) rawJSON(key string) (json.RawMessage, bool) {
	if r.json != nil {
		v, ok := r.json[key]
		if !ok {
			return nil, false
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return json.RawMessage(s), true
		}
		return v, true
	}
	if !r.has(key) {
		return nil, false
	}
	return json.RawMessage(r.str(key)), true
}

// parseRequest reads the arguments of a Web API call.
func parseRequest(r *http.Request, method string, body []byte) (*request, error) {
	req := &request{method: method, http: r, body: body, params: url.Values{}}
	for k, v := range r.URL.Query() {
		req.params[k] = append(req.params[k], v...)
	}
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
		req.token = strings.TrimPrefix(auth, "Bearer ")
	}
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ctype == "application/json":
		req.json = map[string]json.RawMessage{}
		if len(bytes.TrimSpace(body)) > 0 && string(bytes.TrimSpace(body)) != "null" {
			if err := json.Unmarshal(body, &req.json); err != nil {
				return req, err
			}
		}
		for k, v := range req.json {
			var s string
			if json.Unmarshal(v, &s) == nil {
				req.params.Set(k, s)
			} else {
				req.params.Set(k, string(v))
			}
		}
	case ctype == "application/x-www-form-urlencoded" || (ctype == "" && len(body) > 0):
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return req, err
		}
		for k, v := range form {
			req.params[k] = append(req.params[k], v...)
		}
	}
	// A token in the arguments counts for form and GET requests only: Slack
	// ignores it in JSON bodies.
	if req.token == "" && req.json == nil {
		req.token = req.params.Get("token")
	}
	return req, nil
}

// result is the answer to a Web API call.
type result struct {
	status   int
	header   http.Header
	body     []byte
	ok       bool
	errCode  string
	messages []string // validation messages, without the "[ERROR] " prefix
}

// okResult answers {"ok":true, ...fields}.
func okResult(fields map[string]any) result {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["ok"] = true
	b, _ := json.Marshal(fields)
	return result{status: http.StatusOK, body: b, ok: true}
}

// errResult answers {"ok":false,"error":code} with Slack's
// response_metadata.messages when there are messages. invalid_blocks
// answers also list them under "errors", as Slack does.
func errResult(code string, messages ...string) result {
	body := map[string]any{"ok": false, "error": code}
	if len(messages) > 0 {
		meta := make([]string, len(messages))
		for i, m := range messages {
			meta[i] = "[ERROR] " + m
		}
		body["response_metadata"] = map[string]any{"messages": meta}
		if code == "invalid_blocks" {
			body["errors"] = messages
		}
	}
	b, _ := json.Marshal(body)
	return result{status: http.StatusOK, body: b, errCode: code, messages: messages}
}

// httpFailure answers a bare HTTP error the way Slack's edge does (an HTML
// body for 5xx, a JSON "ratelimited" body for 429).
func httpFailure(status int, retryAfterSeconds int) result {
	res := result{status: status, header: http.Header{}}
	if status == http.StatusTooManyRequests {
		res.body = []byte(`{"ok":false,"error":"ratelimited"}`)
		res.header.Set("Content-Type", "application/json; charset=utf-8")
	} else {
		res.body = []byte(fmt.Sprintf("<html><body><h1>%d %s</h1></body></html>", status, http.StatusText(status)))
		res.header.Set("Content-Type", "text/html")
	}
	if retryAfterSeconds > 0 {
		res.header.Set("Retry-After", fmt.Sprint(retryAfterSeconds))
	}
	return res
}

// webMethods are the Web API methods the fake implements. Each runs with
// s.mu held.
var webMethods = map[string]func(*Server, *request) result{
	"auth.test":             (*Server).authTest,
	"apps.connections.open": (*Server).appsConnectionsOpen,
	"chat.postMessage":      (*Server).chatPostMessage,
	"chat.update":           (*Server).chatUpdate,
	"chat.delete":           (*Server).chatDelete,
	"chat.postEphemeral":    (*Server).chatPostEphemeral,
	"chat.getPermalink":     (*Server).chatGetPermalink,
	"reactions.add":         (*Server).reactionsAdd,
	"conversations.open":    (*Server).conversationsOpen,
	"conversations.history": (*Server).conversationsHistory,
	"conversations.replies": (*Server).conversationsReplies,
	"views.open":            (*Server).viewsOpen,
	"views.push":            (*Server).viewsPush,
	"views.update":          (*Server).viewsUpdate,
	"views.publish":         (*Server).viewsPublish,
	"usergroups.users.list": (*Server).usergroupsUsersList,
	"users.info":            (*Server).usersInfo, // users.go
	"users.lookupByEmail":   (*Server).usersLookupByEmail,
}

// serveAPI answers one Web API call: scripted failures first, then the
// method, the token, the rate limiter and finally the method itself.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(r.Body)
	req, perr := parseRequest(r, method, body)
	call := Call{
		Method:      method,
		HTTPMethod:  r.Method,
		ContentType: r.Header.Get("Content-Type"),
		Params:      req.params,
		Body:        body,
	}
	if req.json != nil {
		_ = json.Unmarshal(body, &call.JSON)
	}
	s.wait(method, r.Context().Done())

	s.mu.Lock()
	call.At = s.cfg.clock.Now()
	if s.drop {
		call.Error = "connection_dropped"
		s.recordLocked(call, nil)
		s.mu.Unlock()
		dropConnection(w)
		return
	}
	res := s.answerLocked(method, req, perr)
	call.Status, call.OK, call.Error, call.Response = res.status, res.ok, res.errCode, res.body
	failing := s.recordLocked(call, res.messages)
	s.mu.Unlock()

	if failing != nil {
		s.t.Errorf("slackfake: rejected %s", failing)
	}
	for k, v := range res.header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body)
}

// answerLocked decides the answer to a call. s.mu must be held.
func (s *Server) answerLocked(method string, req *request, perr error) result {
	if s.down {
		return httpFailure(http.StatusServiceUnavailable, 0)
	}
	if f, ok := s.takeFailureLocked(method); ok {
		return httpFailure(f.status, ceilSeconds(f.retryAfter))
	}
	handler, ok := webMethods[method]
	if !ok {
		return errResult("unknown_method")
	}
	if perr != nil {
		return errResult("invalid_json", perr.Error())
	}
	if res, ok := s.checkTokenLocked(method, req.token); !ok {
		return res
	}
	if method == "chat.postMessage" {
		if wait, limited := s.rateLimitedLocked(req.str("channel")); limited {
			return httpFailure(http.StatusTooManyRequests, ceilSeconds(wait))
		}
	}
	return handler(s, req)
}

// checkTokenLocked checks the token of a call: the app-level token for
// apps.connections.open, the bot token for everything else.
func (s *Server) checkTokenLocked(method, token string) (result, bool) {
	want, other := s.cfg.botToken, s.cfg.appToken
	if method == "apps.connections.open" {
		want, other = other, want
	}
	switch token {
	case want:
		return result{}, true
	case "":
		return errResult("not_authed"), false
	case other:
		return errResult("not_allowed_token_type"), false
	default:
		return errResult("invalid_auth"), false
	}
}

// authTest answers auth.test for the bot user.
func (s *Server) authTest(*request) result {
	return okResult(map[string]any{
		"url":                   "https://" + TeamDomain + ".slack.com/",
		"team":                  "Slack Fake",
		"user":                  BotName,
		"team_id":               TeamID,
		"user_id":               BotUserID,
		"bot_id":                BotID,
		"is_enterprise_install": false,
	})
}

// appsConnectionsOpen issues a single-use WebSocket URL.
func (s *Server) appsConnectionsOpen(*request) result {
	ticket := newUUID()
	s.tickets[ticket] = true
	u := "ws" + strings.TrimPrefix(s.ts.URL, "http") + "/link/?ticket=" + ticket + "&app_id=" + AppID
	return okResult(map[string]any{"url": u})
}

// dropConnection closes the client's connection without an answer.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	c, _, err := hj.Hijack()
	if err == nil {
		_ = c.Close()
	}
}
