package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var nextField = regexp.MustCompile(`name="next" value="([^"]*)"`)

// TestSignInNextStaysOnThisSite: where sign-in goes next (the form's
// next, from /login?next=) is a path on this site, or "/": never another
// host however a browser reads the Location (it drops tabs and newlines
// and reads "\" as "/"), never a scheme, never /login itself.
func TestSignInNextStaysOnThisSite(t *testing.T) {
	e := newEnv(t, false)
	for _, c := range []struct {
		name, next, want string
	}{
		{"a path", "/runs", "/runs"},
		{"a path with a query", "/runs?all=1&cursor=abc", "/runs?all=1&cursor=abc"},
		{"a run's page (its id may hold / @ :)", "/runs/loop-1@api:ci/x", "/runs/loop-1@api:ci/x"},
		{"an escaped slash is a path", "/%2F%2Fevil.example", "/%2F%2Fevil.example"},
		{"dots are cleaned as http.Redirect does", "/.//evil.example", "/evil.example"},
		{"none", "", "/"},
		{"a relative path", "runs", "/"},
		{"a scheme", "https://evil.example/", "/"},
		{"javascript", "javascript:alert(1)", "/"},
		{"another host", "//evil.example/x", "/"},
		{"another host by a backslash", "/\\evil.example", "/"},
		{"a backslash anywhere", "/runs\\..\\x", "/"},
		{"a backslash after cleaning", "/./\\evil.example", "/"},
		{"a backslash after cleaning dot-dot", "/../\\evil.example", "/"},
		{"a tab a browser drops", "/\t/evil.example", "/"},
		{"a newline", "/\n/evil.example", "/"},
		{"a carriage return and newline", "/\r\n/evil.example", "/"},
		{"a NUL", "/runs\x00", "/"},
		{"DEL", "/\x7f/evil.example", "/"},
		{"a C1 control", "/\u0085/evil.example", "/"},
		{"invalid UTF-8", "/runs\xff", "/"},
		{"the sign-in page", "/login", "/"},
		{"the sign-in page by dots", "/./login?next=/login", "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := e.browser(t)
			form := b.get("/login?next=" + url.QueryEscape(c.next))
			require.Equal(t, http.StatusOK, form.status)
			m := nextField.FindStringSubmatch(form.body)
			require.NotNil(t, m, "the form carries next")
			if c.want == "/" {
				assert.Equal(t, "/", html.UnescapeString(m[1]), "the form's next")
			}
			r := b.post("/login", url.Values{"token": {"alice-token-0123456789"}, "next": {c.next}})
			require.Equal(t, http.StatusSeeOther, r.status, r.body)
			assert.Equal(t, c.want, r.header.Get("Location"))
		})
	}
}
