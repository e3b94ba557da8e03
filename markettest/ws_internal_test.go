package markettest

import (
	"testing"
	"time"

	"github.com/d19c4e34/itick"
)

// TestStreamLive checks when the stream pushes a product: while its market
// trades, and only in the regions the plan covers.
func TestStreamLive(t *testing.T) {
	t.Parallel()
	var (
		usOpen    = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC) // Friday 11:09 in New York
		usNight   = time.Date(2025, 3, 14, 3, 9, 26, 0, time.UTC)  // Thursday 23:09 in New York, Friday 11:09 in Hong Kong
		hkLunch   = time.Date(2025, 3, 14, 4, 30, 0, 0, time.UTC)  // 12:30 in Hong Kong
		saturday  = time.Date(2025, 3, 15, 15, 9, 26, 0, time.UTC)
		sunday    = time.Date(2025, 3, 16, 23, 0, 0, 0, time.UTC)
		july4     = time.Date(2025, 7, 4, 15, 0, 0, 0, time.UTC)
		usPremkt  = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC) // 08:00 in New York
		usClosing = time.Date(2025, 3, 14, 19, 59, 59, 999_000_000, time.UTC)
	)
	// live is asked about each instant below; the servers' clocks are
	// pinned all the same.
	all := NewServer(WithFixedClock(usOpen))
	defer all.Close()
	usOnly := NewServer(WithFixedClock(usOpen), WithRegions(itick.RegionUS))
	defer usOnly.Close()
	tests := []struct {
		srv    *Server
		class  Class
		region string
		code   string
		at     time.Time
		want   bool
	}{
		{all, Stock, "US", "AAPL", usOpen, true},
		{all, Stock, "us", "aapl", usOpen, true},
		{all, Stock, "US", "AAPL", usClosing, true},
		{all, Stock, "US", "AAPL", usClosing.Add(time.Millisecond), false},
		{all, Stock, "US", "AAPL", usNight, false},
		{all, Stock, "US", "AAPL", usPremkt, false},
		{all, Stock, "US", "AAPL", saturday, false},
		{all, Stock, "US", "AAPL", july4, false},
		{all, Stock, "HK", "700", usNight, true},
		{all, Stock, "HK", "700", hkLunch, false},
		{all, Stock, "HK", "700", usOpen, false},
		{all, Crypto, "BA", "BTCUSDT", saturday, true},
		{all, Crypto, "BA", "BTCUSDT", usNight, true},
		{all, Forex, "GB", "EURUSD", usNight, true},
		{all, Forex, "GB", "EURUSD", saturday, false},
		{all, Future, "US", "GC", sunday, false},
		{all, Future, "US", "GC", usOpen, true},
		{all, Indices, "GB", "SPX", usOpen, true},
		{all, Indices, "GB", "SPX", usNight, false},
		{all, Indices, "GB", "HSI", usNight, true},
		{all, Fund, "US", "SPY", saturday, false},
		{usOnly, Stock, "US", "AAPL", usOpen, true},
		{usOnly, Stock, "us", "AAPL", usOpen, true},
		{usOnly, Stock, "HK", "700", usNight, false},
		{usOnly, Crypto, "BA", "BTCUSDT", saturday, false},
	}
	for _, tt := range tests {
		if got := tt.srv.streamLive(string(tt.class), tt.code, tt.region, tt.at); got != tt.want {
			t.Errorf("%s %s$%s at %s (regions %v): live %v, want %v", tt.class, tt.code, tt.region,
				tt.at.Format(time.RFC3339Nano), tt.srv.cfg.regions, got, tt.want)
		}
	}
}
