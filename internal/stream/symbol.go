package stream

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/d19c4e34/itick/internal/batch"
)

// Symbol is a product on the wire: code$REGION, or code$EXCHANGE$REGION
// for a stock of a secondary exchange. Its fields keep the case the caller
// wrote; Key tells products apart ignoring case, as the service does.
type Symbol struct {
	Code     string
	Exchange string
	Region   string
}

// String is the wire form.
func (s Symbol) String() string {
	if s.Exchange != "" {
		return s.Code + "$" + s.Exchange + "$" + s.Region
	}
	if s.Region == "" {
		return s.Code
	}
	return s.Code + "$" + s.Region
}

// Key is the product's identity: its wire form in upper case.
func (s Symbol) Key() string { return strings.ToUpper(s.String()) }

// Matcher finds the subscription a pushed product belongs to, if any.
type Matcher func(pushed Symbol) (Symbol, bool)

// ParseSymbol reads "code$REGION" or "code$EXCHANGE$REGION", trimmed.
func ParseSymbol(raw string) (Symbol, error) {
	t := strings.TrimSpace(raw)
	rest, region, ok := cutLast(t, '$')
	if !ok {
		return Symbol{}, fmt.Errorf("stream symbol %q is not code$REGION or code$EXCHANGE$REGION", raw)
	}
	var exchange string
	if c, x, ok := cutLast(rest, '$'); ok {
		rest, exchange = c, x
		if err := validExchange(exchange); err != nil {
			return Symbol{}, fmt.Errorf("stream symbol %q: %v", raw, err)
		}
	}
	code, err := batch.Code(rest)
	if err != nil {
		return Symbol{}, fmt.Errorf("stream symbol %q: %v", raw, err)
	}
	if strings.Contains(code, "$") {
		return Symbol{}, fmt.Errorf("stream symbol %q has more than two $", raw)
	}
	if err := batch.Region(region); err != nil {
		return Symbol{}, fmt.Errorf("stream symbol %q: %v", raw, err)
	}
	return Symbol{Code: code, Exchange: exchange, Region: region}, nil
}

// parseSymbols parses and de-duplicates symbols, keeping the first form
// of each product.
func (e *Engine[E]) parseSymbols(symbols []string) ([]Symbol, error) {
	if len(symbols) == 0 {
		return nil, fmt.Errorf("%w: no stream symbols", e.cfg.ErrInvalidArgument)
	}
	out := make([]Symbol, 0, len(symbols))
	seen := make(map[string]struct{}, len(symbols))
	for _, raw := range symbols {
		sym, err := ParseSymbol(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", e.cfg.ErrInvalidArgument, err)
		}
		if _, dup := seen[sym.Key()]; !dup {
			seen[sym.Key()] = struct{}{}
			out = append(out, sym)
		}
	}
	return out, nil
}

// validExchange checks the EXCHANGE of code$EXCHANGE$REGION: a name such
// as SHSE or NASDAQ, so a letter first, then letters, digits, '_' or '-'.
func validExchange(x string) error {
	if x == "" {
		return errors.New("exchange is empty")
	}
	for i, c := range x {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || (c < '0' || c > '9') && c != '_' && c != '-') {
			return fmt.Errorf("exchange %q is not a name (a letter, then letters, digits, '_' or '-')", x)
		}
	}
	return nil
}

// cutLast splits s around its last sep.
func cutLast(s string, sep byte) (before, after string, found bool) {
	if i := strings.LastIndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// PushedSymbol reads a push's s, which may carry a $REGION or
// $EXCHANGE$REGION suffix, and r, which gives the region when present.
func PushedSymbol(s, r string) Symbol {
	sym := Symbol{Code: s, Region: r}
	if code, region, ok := cutLast(s, '$'); ok {
		sym.Code = code
		if sym.Region == "" {
			sym.Region = region
		}
		if code, exchange, ok := cutLast(code, '$'); ok {
			sym.Code, sym.Exchange = code, exchange
		}
	}
	return sym
}

func compareSymbols(a, b Symbol) int {
	return cmp.Or(cmp.Compare(a.Region, b.Region), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Exchange, b.Exchange))
}
