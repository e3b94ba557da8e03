package markettest_test

import (
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// TestWithFixedClock: the server's clock stands at the instant given, and
// what it answers is of that instant.
func TestWithFixedClock(t *testing.T) {
	t.Parallel()
	srv := markettest.NewServer(markettest.WithFixedClock(fixedNow))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	q, err := client.Crypto.Quote(t.Context(), itick.RegionBA, "BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	if !srv.Now().Equal(fixedNow) || !q.Time.Equal(fixedNow.Truncate(time.Millisecond)) {
		t.Errorf("Now = %s, quote of %s; want both at %s", srv.Now(), q.Time, fixedNow)
	}
}

// TestWithClockFrom: the server's clock starts at the instant given and
// runs at the speed of real time from there.
func TestWithClockFrom(t *testing.T) {
	t.Parallel()
	before := time.Now()
	srv := markettest.NewServer(markettest.WithClockFrom(fixedNow))
	defer srv.Close()
	first := srv.Now()
	if first.Before(fixedNow) || first.Sub(fixedNow) > time.Since(before) {
		t.Fatalf("Now = %s right after NewServer, want %s plus no more than the real time since", first, fixedNow)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !srv.Now().After(first) {
		if time.Now().After(deadline) {
			t.Fatalf("the clock stands at %s", first)
		}
		time.Sleep(time.Millisecond)
	}
	// The clock starts when NewServer runs, not when the option is made.
	opt := markettest.WithClockFrom(fixedNow)
	time.Sleep(20 * time.Millisecond)
	started := time.Now()
	again := markettest.NewServer(opt)
	defer again.Close()
	if d := again.Now().Sub(fixedNow); d < 0 || d > time.Since(started) {
		t.Errorf("a server made 20 ms after its option reads the instant plus %s, more than the real time since NewServer", d)
	}
}

// TestClientReadsTheServersClock: Server.Client gives its clients the
// server's clock, as it moves; an itick.WithClock among the options wins.
func TestClientReadsTheServersClock(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(fixedNow)
	srv := markettest.NewServer(markettest.WithClock(clock.Now))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(36 * time.Hour)
	if got, want := client.Now(), fixedNow.Add(36*time.Hour); !got.Equal(want) {
		t.Errorf("Client.Now = %s, want the server's %s", got, want)
	}
	other := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	own, err := srv.Client(itick.WithClock(func() time.Time { return other }))
	if err != nil {
		t.Fatal(err)
	}
	if got := own.Now(); !got.Equal(other) {
		t.Errorf("with itick.WithClock: Client.Now = %s, want %s", got, other)
	}
}
