package markettest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func TestOpenEnvWithoutTokenStartsTheSimulator(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	t.Setenv("ITICK_BASE_URL", "http://127.0.0.1:1") // ignored without a token
	env, err := markettest.OpenEnv([]markettest.Option{markettest.WithFixedClock(fixedNow), markettest.WithPlan(itick.PlanPremium)},
		itick.WithPlan(itick.PlanPremium))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if !env.Offline() || env.Server == nil || env.Client.BaseURL() != env.Server.URL {
		t.Fatalf("offline %v, client at %s, simulator %v", env.Offline(), env.Client.BaseURL(), env.Server)
	}
	codes := make([]string, 50)
	for i := range codes {
		codes[i] = "C" + strings.Repeat("X", i)
	}
	// 50 codes are one request on Premium: the simulator enforces the plan it was given.
	if _, err := env.Client.Stock.Quotes(t.Context(), itick.RegionHK, codes); err != nil {
		t.Fatalf("the client cannot reach the simulator: %v", err)
	}
	if n := len(env.Server.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	env.Close()
	env.Close() // a second Close is harmless
}

func TestOpenEnvWithTokenUsesTheEnvironment(t *testing.T) {
	// A simulator stands in for the real service at ITICK_BASE_URL.
	srv := markettest.NewServer(markettest.WithFixedClock(fixedNow), markettest.WithToken("env-token-123"),
		markettest.WithPlan(itick.PlanPremium))
	defer srv.Close()
	t.Setenv("ITICK_TOKEN", "env-token-123")
	t.Setenv("ITICK_BASE_URL", srv.URL)
	t.Setenv("ITICK_PLAN", "premium")
	t.Setenv(markettest.EnvSimTime, "2025-06-04T15:30:00Z") // read only offline
	// clock: none, with ITICK_TOKEN set the client is the service's, on the real clock.
	env, err := markettest.OpenEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.Offline() || env.Server != nil || env.Client.BaseURL() != srv.URL || env.Client.BatchSize() != 50 {
		t.Fatalf("offline %v, client %v", env.Offline(), env.Client)
	}
	if now := env.Client.Now(); time.Until(now).Abs() > time.Minute {
		t.Errorf("the service's client reads %s, want the real clock", now)
	}
	if _, err := env.Client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests(); len(r) != 1 || !r[0].TokenValid {
		t.Errorf("requests %+v, want one with the environment's token", r)
	}
}

func TestOpenEnvBadEnvironmentIsAnError(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "some-token")
	t.Setenv("ITICK_PLAN", "gold")
	// clock: none, the bad plan is refused before anything starts.
	if env, err := markettest.OpenEnv(nil); err == nil || !strings.Contains(err.Error(), "ITICK_PLAN") {
		if env != nil {
			env.Close()
		}
		t.Fatalf("err = %v, want one naming ITICK_PLAN", err)
	}
}

// TestOpenEnvGivesTheClientTheSimulatorsClock: offline, the client reads
// the simulator's clock, so a program that works out dates from
// Client.Now agrees with the simulator; a clock among clientOpts wins.
func TestOpenEnvGivesTheClientTheSimulatorsClock(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	clock := markettest.NewManualClock(fixedNow)
	env, err := markettest.OpenEnv([]markettest.Option{markettest.WithClock(clock.Now)})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	clock.Advance(time.Hour)
	if got := env.Client.Now(); !got.Equal(fixedNow.Add(time.Hour)) {
		t.Errorf("Client.Now = %s, want the simulator's %s", got, fixedNow.Add(time.Hour))
	}

	other := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	env2, err := markettest.OpenEnv([]markettest.Option{markettest.WithFixedClock(fixedNow)},
		itick.WithClock(func() time.Time { return other }))
	if err != nil {
		t.Fatal(err)
	}
	defer env2.Close()
	if got := env2.Client.Now(); !got.Equal(other) {
		t.Errorf("with itick.WithClock among clientOpts: Client.Now = %s, want %s", got, other)
	}
}

// TestOpenEnvSimTime: offline, ITICK_SIM_TIME stops the simulator's
// clock, and the client's with it; a clock among simOpts wins over it; a
// value that is no RFC 3339 time is an error naming the variable.
func TestOpenEnvSimTime(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	at := time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		value   string
		simOpts []markettest.Option
		want    time.Time
	}{
		{"UTC", "2025-06-04T15:30:00Z", nil, at},
		{"an offset", "2025-06-04T11:30:00-04:00", nil, at},
		{"fractions", " 2025-06-04T15:30:00.250Z ", nil, at.Add(250 * time.Millisecond)},
		{"simOpts win", "2025-06-04T15:30:00Z", []markettest.Option{markettest.WithFixedClock(fixedNow)}, fixedNow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(markettest.EnvSimTime, tt.value)
			env, err := markettest.OpenEnv(append([]markettest.Option{markettest.WithSeed(3)}, tt.simOpts...))
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			if s, c := env.Server.Now(), env.Client.Now(); !s.Equal(tt.want) || !c.Equal(tt.want) {
				t.Errorf("the simulator reads %s and the client %s, want %s", s, c, tt.want)
			}
		})
	}
	for _, bad := range []string{"2025-06-04", "yesterday", "2025-06-04 15:30:00"} {
		t.Setenv(markettest.EnvSimTime, bad)
		// clock: none, the bad value is refused before a simulator starts.
		env, err := markettest.OpenEnv(nil)
		if err == nil {
			env.Close()
		}
		if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), markettest.EnvSimTime) ||
			!strings.Contains(err.Error(), bad) {
			t.Errorf("%s=%q: err = %v, want ErrInvalidArgument naming the variable and its value", markettest.EnvSimTime, bad, err)
		}
	}
}
