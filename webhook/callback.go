package webhook

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/hitlbot/hitl/fault"
)

// MaxCallbackURLLen bounds a question's callbackUrl.
const MaxCallbackURLLen = 2000

// CallbackPolicy says where a question's callbackUrl may point: an agent
// must not make hitl call arbitrary addresses. It is checked when the
// question is asked (Check, before anything is stored) and again on
// every connection the delivery makes (DialAllowed), so that a name
// that resolves elsewhere later (DNS rebinding) is refused then.
type CallbackPolicy struct {
	// AllowedHosts are the host names (or IP literals) a callbackUrl may
	// name; "*.example.com" allows every name under example.com. Empty:
	// no callbackUrl is allowed (webhooks_allowed_hosts).
	AllowedHosts []string
	// AllowHTTP allows http:// to hosts that are not loopback
	// (webhooks_allow_http); https:// is always allowed.
	AllowHTTP bool
	// AllowPrivate allows addresses in private, link-local, unique-local,
	// reserved, IPv4-embedding IPv6 (NAT64, 6to4, Teredo, IPv4-compatible),
	// CGNAT or unspecified ranges (webhooks_allow_private). Loopback is
	// allowed when the URL names a loopback host itself (localhost,
	// 127.0.0.1, [::1]).
	AllowPrivate bool
}

// Check refuses (EINVALID, naming the setting to change) a callbackUrl
// the policy does not allow. An empty one is allowed (none).
func (p CallbackPolicy) Check(raw string) error {
	if raw == "" {
		return nil
	}
	if len(raw) > MaxCallbackURLLen {
		return fault.Errorf(fault.EINVALID, "callbackUrl is longer than %d characters", MaxCallbackURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fault.Errorf(fault.EINVALID, "callbackUrl %q is not an absolute http(s) URL", raw)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fault.Errorf(fault.EINVALID, "callbackUrl: scheme %q is not allowed: use https:// (or http:// to loopback)", u.Scheme)
	}
	if u.User != nil {
		return fault.Errorf(fault.EINVALID, "callbackUrl must not carry credentials (user:password@)")
	}
	host := strings.ToLower(u.Hostname())
	if !p.hostListed(host) {
		if len(p.AllowedHosts) == 0 {
			return fault.Errorf(fault.EINVALID, "callbackUrl: no host is allowed; list %q in webhooks_allowed_hosts in the config", host)
		}
		return fault.Errorf(fault.EINVALID, "callbackUrl: host %q is not in webhooks_allowed_hosts", host)
	}
	loop := loopbackHost(host)
	if u.Scheme == "http" && !loop && !p.AllowHTTP {
		return fault.Errorf(fault.EINVALID, "callbackUrl: http:// is only allowed to loopback; use https:// or set webhooks_allow_http: true")
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !p.AddrAllowed(ip, loop) {
		return fault.Errorf(fault.EINVALID, "callbackUrl: %s is a private address; set webhooks_allow_private: true to allow it", ip)
	}
	return nil
}

// hostListed reports whether host is in AllowedHosts.
func (p CallbackPolicy) hostListed(host string) bool {
	for _, h := range p.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == host {
			return true
		}
		if suffix, ok := strings.CutPrefix(h, "*."); ok && strings.HasSuffix(host, "."+suffix) {
			return true
		}
	}
	return false
}

// loopbackHost reports whether host (from a URL) names this machine:
// localhost or a loopback literal.
func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// AddrAllowed reports whether a delivery may connect to ip: a public
// address, a loopback one when the URL named a loopback host
// (loopbackURL), and a private one only when AllowPrivate. An
// IPv4-mapped address (::ffff:a.b.c.d) is judged as the IPv4 address it
// carries; the other ranges that carry or translate an IPv4 address
// (NAT64, 6to4, IPv4-compatible, Teredo) and the reserved ranges in
// restricted are private.
func (p CallbackPolicy) AddrAllowed(ip netip.Addr, loopbackURL bool) bool {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return loopbackURL || p.AllowPrivate
	case ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsUnspecified(),
		ip.IsMulticast(), ip.IsInterfaceLocalMulticast(), restricted(ip):
		return p.AllowPrivate
	}
	return ip.IsValid()
}

// restrictedPrefixes are ranges a callback may reach only with
// webhooks_allow_private: CGNAT, benchmarking, reserved and broadcast
// IPv4; IPv6 site-local; and every IPv6 range that embeds or
// translates an IPv4 address, since on a network with NAT64 or a 6to4
// or Teredo relay an address there reaches the IPv4 address it carries
// (64:ff9b::a9fe:a9fe is the metadata service).
var restrictedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast 255.255.255.255
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated, still routed privately)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64 local use
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // SIIT IPv4-translated
}

// restricted reports whether ip (already unmapped) is in a
// restrictedPrefixes range.
func restricted(ip netip.Addr) bool {
	for _, r := range restrictedPrefixes {
		if r.Contains(ip) {
			return true
		}
	}
	return false
}

// DialAllowed checks a connection a delivery to rawURL is about to make
// to address (host:port, resolved): EFORBIDDEN when the policy does not
// allow it.
func (p CallbackPolicy) DialAllowed(rawURL, address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fault.Errorf(fault.EFORBIDDEN, "webhook: bad address %q", address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fault.Errorf(fault.EFORBIDDEN, "webhook: %q is not an IP address", host)
	}
	loop := false
	if u, err := url.Parse(rawURL); err == nil {
		loop = loopbackHost(strings.ToLower(u.Hostname()))
	}
	if !p.AddrAllowed(ip, loop) {
		return fault.Errorf(fault.EFORBIDDEN, "webhook: %s resolves to %s, a private address (webhooks_allow_private is off)", rawURL, ip)
	}
	return nil
}
