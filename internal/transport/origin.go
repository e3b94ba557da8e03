package transport

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Origin is the scheme, host and port of a URL: the unit the token is
// confined to. Two URLs may share the token only when their Origins are
// equal (==).
//
// The fields are normalised so that equal origins compare equal however
// they are written: the scheme and host are lower case; ws and wss are
// the http and https they upgrade from (a WebSocket handshake is an HTTP
// request, and its redirects are http(s) URLs); the port is always
// explicit, the scheme's default filled in and leading zeros dropped; an
// IPv6 literal is in its canonical form, without brackets.
type Origin struct {
	Scheme string // "http", "https" or another scheme, lower case
	Host   string // lower-case name, or an IP literal without brackets
	Port   string // decimal, never empty for http and https
}

// OriginOf returns u's origin. A nil u has the zero Origin, which no URL
// with a host matches.
func OriginOf(u *url.URL) Origin {
	if u == nil {
		return Origin{}
	}
	o := Origin{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Port: u.Port()}
	switch o.Scheme {
	case "ws":
		o.Scheme = "http"
	case "wss":
		o.Scheme = "https"
	}
	if strings.Contains(o.Host, ":") {
		// [::1] and [0:0::1] are one host; a zone stays part of it.
		if a, err := netip.ParseAddr(o.Host); err == nil {
			o.Host = a.String()
		}
	}
	switch {
	case o.Port == "":
		o.Port = defaultPort(o.Scheme)
	case o.Port[0] == '0':
		if n, err := strconv.ParseUint(o.Port, 10, 16); err == nil {
			o.Port = strconv.FormatUint(n, 10)
		}
	}
	return o
}

// SameOrigin reports whether a and b have the same origin. Neither may be
// nil for a true answer.
func SameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil {
		return false
	}
	return OriginOf(a) == OriginOf(b)
}

// Secure reports whether o's scheme encrypts (https, and wss which
// OriginOf maps to it).
func (o Origin) Secure() bool { return o.Scheme == "https" }

// IsZero reports whether o is the zero Origin, which OriginOf gives a nil
// URL and which never receives the token.
func (o Origin) IsZero() bool { return o == Origin{} }

// String writes o as scheme://host:port, with brackets around an IPv6
// literal.
func (o Origin) String() string {
	host := o.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if o.Port == "" {
		return o.Scheme + "://" + host
	}
	return o.Scheme + "://" + host + ":" + o.Port
}

func defaultPort(scheme string) string {
	switch scheme {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
