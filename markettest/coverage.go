package markettest

import (
	"net/url"
	"strings"

	"github.com/d19c4e34/itick"
)

// MsgAuthFailed is the text of the E002 refusal the service sends, with
// WithTextCodes, for a token it does not accept.
const MsgAuthFailed = "auth failed"

// WithRegions limits the markets the plan covers to regions. A request for
// market data of one product or many (quote, tick, depth, K-lines, company
// profile) in any other region its class has is answered as the service is
// reported to answer it: code 0, no error text, and data {}. A stream
// subscription to such a product is acknowledged and never pushed. A region
// the class does not have is E001 either way (see Exists). Without this
// option every region is covered.
func WithRegions(regions ...itick.Region) Option {
	return func(c *config) {
		c.regions = make(map[itick.Region]bool, len(regions))
		for _, r := range regions {
			c.regions[itick.Region(strings.ToUpper(string(r)))] = true
		}
	}
}

// WithTextCodes makes the server send the service's published errors with
// their E-number as a string in code, as third-party clients expect:
// {"code":"E001","msg":"E001 not found this produce"} for an unknown
// product, "E003" for more codes than the plan allows, and, for a token it
// does not accept, {"code":"E002","msg":"auth failed","data":null} with
// HTTP 200 instead of the gateway's 401. Other refusals keep their numeric
// code (CodeBadRequest).
func WithTextCodes() Option { return func(c *config) { c.textCodes = true } }

// wireCode is code as the server sends it.
func (s *Server) wireCode(code int) any {
	if s.cfg.textCodes {
		switch code {
		case CodeNotFound:
			return "E001"
		case CodePlanLimit:
			return "E003"
		}
	}
	return code
}

// covers reports whether the plan covers the market a request asks about.
// Only requests for products (a code or codes) in a region are limited.
func (s *Server) covers(rt *route, q url.Values) bool {
	if s.cfg.regions == nil || rt.class == "" || !(q.Has("code") || q.Has("codes")) {
		return true
	}
	return s.cfg.regions[itick.Region(strings.ToUpper(strings.TrimSpace(q.Get("region"))))]
}

// msg is the envelope msg of the route's successful answers.
func (rt *route) msg() any {
	if rt.msgOK {
		return "ok"
	}
	return nil
}
