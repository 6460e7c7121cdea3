package webhook_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
)

// TestCallbackPolicy is the table of where a question's callbackUrl may
// point.
func TestCallbackPolicy(t *testing.T) {
	hosts := webhook.CallbackPolicy{AllowedHosts: []string{"agent.example", "*.hooks.example", "localhost", "127.0.0.1", "10.1.2.3", "169.254.169.254", "[::1]", "::1"}}
	withHTTP := hosts
	withHTTP.AllowHTTP = true
	private := hosts
	private.AllowPrivate = true
	rows := []struct {
		name   string
		policy webhook.CallbackPolicy
		url    string
		refuse string // "" when allowed; else a word of the message
	}{
		{"none: nothing to check", webhook.CallbackPolicy{}, "", ""},
		{"https to a listed host", hosts, "https://agent.example/resume?run=1", ""},
		{"https to a name under a listed wildcard", hosts, "https://a.b.hooks.example/x", ""},
		{"the wildcard's own domain is not under it", hosts, "https://hooks.example/x", "webhooks_allowed_hosts"},
		{"a host not listed", hosts, "https://evil.example/x", "webhooks_allowed_hosts"},
		{"a listed host as a suffix of another is not it", hosts, "https://agent.example.evil.example/x", "webhooks_allowed_hosts"},
		{"no allowed hosts at all names the setting", webhook.CallbackPolicy{}, "https://agent.example/", "webhooks_allowed_hosts"},
		{"http to a public host", hosts, "http://agent.example/", "webhooks_allow_http"},
		{"http to a public host when allowed", withHTTP, "http://agent.example/", ""},
		{"http to localhost", hosts, "http://localhost:8080/resume", ""},
		{"http to 127.0.0.1", hosts, "http://127.0.0.1:8080/resume", ""},
		{"http to [::1]", hosts, "http://[::1]:8080/resume", ""},
		{"a private address", hosts, "https://10.1.2.3/", "webhooks_allow_private"},
		{"link-local (cloud metadata)", withHTTP, "http://169.254.169.254/latest/meta-data", "webhooks_allow_private"},
		{"a private address when allowed", private, "https://10.1.2.3/", ""},
		{"ftp", hosts, "ftp://agent.example/x", "scheme"},
		{"file", hosts, "file:///etc/passwd", "http(s)"},
		{"javascript", hosts, "javascript:alert(1)", "http(s)"},
		{"relative", hosts, "/resume", "http(s)"},
		{"credentials in the URL", hosts, "https://u:p@agent.example/", "credentials"},
		{"too long", hosts, "https://agent.example/" + strings.Repeat("a", webhook.MaxCallbackURLLen), "longer"},
		{"not a URL", hosts, "https://agent.example/%zz", "http(s)"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			err := r.policy.Check(r.url)
			if r.refuse == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.Contains(t, fault.Message(err), r.refuse)
		})
	}
}

// TestCallbackDialAllowed is the table of the addresses a delivery to a
// callbackUrl may connect to, after the name is resolved.
func TestCallbackDialAllowed(t *testing.T) {
	strict := webhook.CallbackPolicy{}
	private := webhook.CallbackPolicy{AllowPrivate: true}
	rows := []struct {
		name   string
		policy webhook.CallbackPolicy
		url    string
		addr   string
		ok     bool
	}{
		{"a public address", strict, "https://agent.example/", "93.184.216.34:443", true},
		{"a public IPv6 address", strict, "https://agent.example/", "[2606:2800:220:1::1]:443", true},
		{"a name rebound to loopback", strict, "https://agent.example/", "127.0.0.1:443", false},
		{"a name rebound to 10/8", strict, "https://agent.example/", "10.0.0.7:443", false},
		{"a name rebound to 192.168/16", strict, "https://agent.example/", "192.168.1.1:443", false},
		{"a name rebound to 172.16/12", strict, "https://agent.example/", "172.20.0.1:443", false},
		{"a name rebound to link-local", strict, "https://agent.example/", "169.254.169.254:80", false},
		{"a name rebound to IPv6 unique-local", strict, "https://agent.example/", "[fd00::1]:443", false},
		{"a name rebound to IPv4-mapped loopback", strict, "https://agent.example/", "[::ffff:127.0.0.1]:443", false},
		{"a name rebound to CGNAT", strict, "https://agent.example/", "100.64.0.1:443", false},
		{"a name rebound to 0.0.0.0", strict, "https://agent.example/", "0.0.0.0:443", false},
		{"NAT64 to the metadata service", strict, "https://agent.example/", "[64:ff9b::a9fe:a9fe]:443", false},
		{"NAT64 to a public address", strict, "https://agent.example/", "[64:ff9b::5db8:d822]:443", false},
		{"NAT64 local-use", strict, "https://agent.example/", "[64:ff9b:1::a9fe:a9fe]:443", false},
		{"6to4 carrying the metadata service", strict, "https://agent.example/", "[2002:a9fe:a9fe::1]:443", false},
		{"IPv4-compatible metadata service", strict, "https://agent.example/", "[::a9fe:a9fe]:443", false},
		{"IPv4-mapped metadata service", strict, "https://agent.example/", "[::ffff:a9fe:a9fe]:443", false},
		{"IPv4-mapped 10/8", strict, "https://agent.example/", "[::ffff:10.0.0.1]:443", false},
		{"IPv4-mapped public address (judged as its IPv4)", strict, "https://agent.example/", "[::ffff:93.184.216.34]:443", true},
		{"Teredo", strict, "https://agent.example/", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443", false},
		{"IPv6 site-local", strict, "https://agent.example/", "[fec0::1]:443", false},
		{"benchmarking 198.18/15", strict, "https://agent.example/", "198.19.0.1:443", false},
		{"reserved 240/4", strict, "https://agent.example/", "240.0.0.1:443", false},
		{"broadcast", strict, "https://agent.example/", "255.255.255.255:443", false},
		{"NAT64 when private ones are allowed", private, "https://agent.example/", "[64:ff9b::a9fe:a9fe]:443", true},
		{"Teredo when private ones are allowed", private, "https://agent.example/", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443", true},
		{"localhost to loopback", strict, "http://localhost:8080/", "127.0.0.1:8080", true},
		{"localhost to a private address", strict, "http://localhost:8080/", "10.0.0.1:8080", false},
		{"a private address when allowed", private, "https://agent.example/", "10.0.0.7:443", true},
		{"loopback when private ones are allowed", private, "https://agent.example/", "127.0.0.1:443", true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			err := r.policy.DialAllowed(r.url, r.addr)
			if r.ok {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
			}
		})
	}
	assert.False(t, strict.AddrAllowed(netip.Addr{}, false), "no address")
}
