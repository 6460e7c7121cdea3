package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/visible"
)

// page is what every template gets: the layout's fields and the page's
// own Data.
type page struct {
	Title string
	// Page names the page for the script (inbox, question, runs, run).
	Page string
	CSRF string
	// Who is the signed-in principal (empty on the sign-in page).
	Who auth.Principal
	// SignOut offers the "Sign out" button (not to the local person).
	SignOut bool
	// Waiting is how many questions wait on the person (the tab title).
	Waiting int
	RunID   string
	Data    any
}

// pages are the page templates, each parsed with the layout.
var pages = []string{"inbox", "question", "runs", "run", "login", "result", "error"}

func parseTemplates() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range pages {
		t := template.New("layout.html").Funcs(funcs)
		out[name] = template.Must(t.ParseFS(templateFS, "templates/layout.html", "templates/card.html", "templates/"+name+".html"))
	}
	return out
}

var funcs = template.FuncMap{
	"rfc3339": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"when": func(t any) string {
		switch t := t.(type) {
		case *time.Time:
			if t == nil {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		case time.Time:
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		return ""
	},
	"iteration": iteration,
	"approval":  approvalOf,
	"title":     titleOf,
	"summary":   summaryOf,
	"topRisk":   topRisk,
	"step":      stepOf,
	// shown is agent text in an element: hidden characters shown as
	// <U+202E> and the text flagged (package visible); vis the same text
	// without the flag, for an attribute.
	"shown": shown,
	"vis":   visible.Line,
	// hidden and flag: the edit box holds the input as it is (what the
	// agent will run), flagged above it.
	"hidden":       visible.Has,
	"flag":         func() string { return visible.Flag },
	"editRows":     editRows,
	"contentLabel": contentLabel,
	"diffStat":     func(a, r int) string { return "+" + strconv.Itoa(a) + " −" + strconv.Itoa(r) },
	// seg is a run id as one path segment: ids may hold '/'.
	"seg":       url.PathEscape,
	"answer":    func(r *hitl.Response) string { return r.String() },
	"steerLine": steerLine,
	// person is who did something, as people see them (auth.PersonName).
	"person": auth.PersonName,
	"join":   strings.Join,
	"agent": func(q *hitl.Question) string {
		switch {
		case q.Context != nil && q.Context.Agent != "":
			return q.Context.Agent
		case q.Operation != nil && q.Operation.Agent != "":
			return q.Operation.Agent
		}
		return q.Asker
	},
	"dict": func(kv ...any) map[string]any {
		m := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
	"approvers": func(q *hitl.Question) string {
		out := make([]string, len(q.Approvals))
		for i, g := range q.Approvals {
			out[i] = g.By
		}
		return strings.Join(out, ", ")
	},
}

// steerLine is a steering request's answer in plain words: received, then
// done or refused with why (the protocol's ACK and RESULT).
func steerLine(m steer.ControlMessage) string {
	if m.Type != steer.MessageResult {
		return "Received: " + string(m.Command)
	}
	if code, failed := m.Failed(); failed {
		return "Refused (" + code + "): " + m.Payload.Message
	}
	return "Done: " + m.Payload.Message
}

// iteration is a run's iteration as the console shows it: "3/10", "3"
// without a planned count, "–" before the loop reported one.
func iteration(c steer.RunControl) string {
	if it := c.Iteration(); it != "" {
		return strings.Replace(it, " of ", "/", 1)
	}
	return "–"
}

// render writes template name with p, completing the layout's fields
// from the signed-in sign-in.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	if s, ok := r.Context().Value(signInKey{}).(*signIn); ok {
		p.CSRF, p.Who, p.SignOut = s.ws.CSRF, s.p, !s.p.Local
	}
	if p.Page == "" {
		p.Page = name
	}
	var buf bytes.Buffer
	if err := h.tmpl[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		h.log.Error("web: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fetched reports whether the page's script sent the request: it gets
// JSON instead of a page.
func fetched(r *http.Request) bool { return r.Header.Get("X-Hitl-Fetch") == "1" }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// status is the HTTP status of err's code: the one place the web inbox
// translates the root's errors.
func status(err error) int {
	switch fault.Code(err) {
	case fault.EINVALID:
		return http.StatusBadRequest
	case fault.ENOTFOUND:
		return http.StatusNotFound
	case fault.ECONFLICT:
		return http.StatusConflict
	case fault.EUNAUTHORIZED:
		return http.StatusUnauthorized
	case fault.EFORBIDDEN, fault.EREFUSED:
		return http.StatusForbidden
	case fault.ERATELIMITED, fault.ETOOMANYSTREAMS:
		return http.StatusTooManyRequests
	case fault.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case fault.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errorView is what a person reads when something was refused.
type errorView struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// fail shows err: a page (or JSON to the page's script) with the root's
// message. Internal errors are logged, and read "internal error".
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	if code == http.StatusInternalServerError {
		if errors.Is(err, r.Context().Err()) && r.Context().Err() != nil {
			return // the person left
		}
		h.log.Error("web: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	var he *fault.Error
	if errors.As(err, &he) && he.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(he.RetryAfter.Seconds()))))
	}
	v := errorView{Code: fault.Code(err), Message: fault.Message(err)}
	if fetched(r) || r.URL.Path == "/events" {
		writeJSON(w, code, v)
		return
	}
	h.render(w, r, code, "error", &page{Title: fmt.Sprintf("%s: %s", http.StatusText(code), v.Code), Data: v})
}

// shown is agent text as an element shows it: every character that is
// invisible or changes the direction text reads in as its code point,
// and, when there was one, the flag after it.
func shown(s string) template.HTML {
	out := template.HTMLEscapeString(visible.Text(s))
	if visible.Has(s) {
		out += ` <strong class="flag" role="note">⚠ ` + template.HTMLEscapeString(visible.Flag) + `</strong>`
	}
	return template.HTML(out)
}
