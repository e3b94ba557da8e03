package stream

import (
	"errors"
	"testing"
)

func TestParseSymbol(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Symbol
		err  bool
	}{
		{" 700$HK ", Symbol{Code: "700", Region: "HK"}, false},
		{"BRK.B$US", Symbol{Code: "BRK.B", Region: "US"}, false},
		{"600519$SHSE$CN", Symbol{Code: "600519", Exchange: "SHSE", Region: "CN"}, false},
		{"xauusd$gb", Symbol{Code: "xauusd", Region: "gb"}, false},
		{"700$$HK", Symbol{}, true},
		{"7$A$B$HK", Symbol{}, true},
		{"700", Symbol{}, true},
		{"$HK", Symbol{}, true},
		{"700$", Symbol{}, true},
		{"7$0$HK", Symbol{}, true},
		{"700$H K", Symbol{}, true},
	}
	invalid := errors.New("invalid argument")
	e := &Engine[int]{cfg: Config[int]{ErrInvalidArgument: invalid}}
	for _, tt := range tests {
		got, err := ParseSymbol(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSymbol(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if _, err := e.parseSymbols([]string{tt.in}); (err != nil) != tt.err || err != nil && !errors.Is(err, invalid) {
			t.Errorf("parseSymbols(%q) = %v, want an error matching ErrInvalidArgument: %v", tt.in, err, tt.err)
		}
	}
}
