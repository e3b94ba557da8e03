package itick

import (
	"strings"

	"github.com/d19c4e34/itick/internal/batch"
)

// Product names one product of any asset class: its class, its region and
// its code, as "stock:US:AAPL" or "crypto:BA:BTCUSDT" in text. It is
// comparable, so it can key a map.
type Product struct {
	Class  AssetType
	Region Region
	Code   string
}

// ParseProduct reads "class:REGION:code", such as "stock:US:AAPL". The
// class is one of the AssetType values and the region one or more letters,
// both in any case (they come back in the case String writes); the code is
// everything after the second colon, trimmed, with its case kept, and must
// be one a REST call can carry (not empty, no comma, no '$', no control
// character). Anything else is ErrInvalidArgument naming the part.
func ParseProduct(s string) (Product, error) {
	text := strings.TrimSpace(s)
	class, rest, ok := strings.Cut(text, ":")
	region, code, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return Product{}, invalidArg("product %q is not class:REGION:code, such as stock:US:AAPL", s)
	}
	p := Product{Class: AssetType(strings.ToLower(class)), Region: Region(strings.ToUpper(region))}
	if err := p.Class.validate(); err != nil {
		return Product{}, invalidArg("product %q: class %q is not stock, forex, indices, crypto, future or fund", s, class)
	}
	if region == "" || strings.ContainsFunc(region, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		return Product{}, invalidArg("product %q: region %q is not a market code of letters, such as US or HK", s, region)
	}
	c, err := batch.Code(code)
	if err != nil {
		return Product{}, invalidArg("product %q: %v", s, err)
	}
	p.Code = c
	return p, nil
}

// String returns the product as ParseProduct reads it: "stock:US:AAPL",
// the class in lower case and the region in upper case.
func (p Product) String() string {
	return strings.ToLower(string(p.Class)) + ":" + strings.ToUpper(string(p.Region)) + ":" + p.Code
}

// MarshalText returns String's form, so a Product is a JSON string and a
// map key.
func (p Product) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads what ParseProduct reads; on an error p is left as it
// was.
func (p *Product) UnmarshalText(b []byte) error {
	v, err := ParseProduct(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
