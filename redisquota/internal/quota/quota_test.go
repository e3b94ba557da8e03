package quota

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestReserveGrantsWholeQuotaThenSpacesByWindow(t *testing.T) {
	t.Parallel()
	w := New(3, time.Minute)
	var got []time.Duration
	for range 7 {
		at, ok := w.reserve(t0, time.Time{})
		if !ok {
			t.Fatal("reserve refused without a deadline")
		}
		got = append(got, at.Sub(t0))
	}
	want := []time.Duration{0, 0, 0, time.Minute, time.Minute, time.Minute, 2 * time.Minute}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("slot %d at %s, want %s (all: %v)", i, got[i], want[i], got)
		}
	}
}

func TestReserveNeverPutsMoreThanNInAnyWindow(t *testing.T) {
	t.Parallel()
	const n = 5
	w := New(n, time.Minute)
	now := t0
	var slots []time.Time
	for i := range 60 {
		// Callers arrive at irregular times, sometimes in bursts.
		now = now.Add(time.Duration(i%7) * 3 * time.Second)
		at, _ := w.reserve(now, time.Time{})
		if at.Before(now) {
			t.Fatalf("slot %s before arrival %s", at, now)
		}
		slots = append(slots, at)
	}
	for i := range slots {
		count := 0
		for j := i; j < len(slots) && slots[j].Sub(slots[i]) < time.Minute; j++ {
			count++
		}
		if count > n {
			t.Fatalf("%d calls in the minute from slot %d, quota %d", count, i, n)
		}
	}
}

func TestReserveRefusesPastDeadlineWithoutTakingSlot(t *testing.T) {
	t.Parallel()
	w := New(1, time.Minute)
	if _, ok := w.reserve(t0, time.Time{}); !ok {
		t.Fatal("first reserve refused")
	}
	if _, ok := w.reserve(t0, t0.Add(time.Second)); ok {
		t.Fatal("reserve granted a slot past the deadline")
	}
	at, ok := w.reserve(t0, time.Time{})
	if !ok || !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after a refusal the next slot is %s, want %s: the refusal took a slot", at, t0.Add(time.Minute))
	}
}

func TestWaitReportsDeadlineAtOnce(t *testing.T) {
	t.Parallel()
	w := New(1, time.Hour)
	if err := w.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := w.Wait(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Wait waited for the deadline instead of refusing at once")
	}
}

func TestWaitStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	w := New(1, time.Hour)
	if err := w.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestCancelledWaitsGiveBackTheirSlots is the shutdown case: callers whose
// contexts end while they wait for a spent quota must leave the next
// window as free as if they had never come.
func TestCancelledWaitsGiveBackTheirSlots(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	sleeping := make(chan time.Duration, 1)
	block := true // sleeps last until ctx ends
	w := NewWithClock(5, time.Minute, clock, func(ctx context.Context, d time.Duration) error {
		sleeping <- d
		if block {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	for i := range 5 {
		if err := w.Wait(context.Background()); err != nil {
			t.Fatalf("call %d of a fresh quota: %v", i, err)
		}
	}
	select {
	case d := <-sleeping:
		t.Fatalf("a fresh quota made a caller wait %s", d)
	default:
	}
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Wait(ctx) }()
		<-sleeping
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait %d: err = %v, want context.Canceled", i, err)
		}
	}

	block = false
	mu.Lock()
	now = t0.Add(30 * time.Second)
	mu.Unlock()
	if err := w.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := <-sleeping; d != 30*time.Second {
		t.Fatalf("after 20 cancelled waits, a caller 30s into the window waits %s, want 30s", d)
	}
	mu.Lock()
	now = t0.Add(time.Minute)
	mu.Unlock()
	for i := range 4 {
		if err := w.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-sleeping:
			t.Fatalf("call %d of the second minute waits %s, want none: cancelled waits kept their slots", i, d)
		default:
		}
	}
}

// TestCancelledAndRefusedWaitsKeepQuota runs random arrivals, deadline
// refusals and cancellations on a virtual clock and checks that the slots
// granted never put more than n calls in any span of per, and that each
// caller gets the earliest slot the quota allows, freed ones included.
func TestCancelledAndRefusedWaitsKeepQuota(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		n := 1 + rng.IntN(6)
		per := time.Duration(1+rng.IntN(60)) * time.Second
		w := New(n, per)
		now := t0
		var waiting, used []time.Time // slots granted and not given back
		for step := range 300 {
			now = now.Add(time.Duration(rng.IntN(2*int(per/time.Millisecond)/n+1)) * time.Millisecond)
			// Waiters whose slot has come make their call.
			for i := 0; i < len(waiting); {
				if !waiting[i].After(now) {
					used = append(used, waiting[i])
					waiting = slices.Delete(waiting, i, i+1)
					continue
				}
				i++
			}
			switch op := rng.IntN(10); {
			case op < 3 && len(waiting) > 0:
				i := rng.IntN(len(waiting))
				w.release(waiting[i])
				waiting = slices.Delete(waiting, i, i+1)
			default:
				var deadline time.Time
				if op == 9 {
					deadline = now.Add(time.Duration(rng.IntN(int(per))))
				}
				live := append(slices.Clone(used), waiting...)
				at, ok := w.reserve(now, deadline)
				want := earliest(live, n, per, now)
				if !at.Equal(want) {
					t.Fatalf("seed %d step %d: slot %s, want the earliest free one %s", seed, step, at.Sub(t0), want.Sub(t0))
				}
				if !ok {
					if deadline.IsZero() || !at.After(deadline) {
						t.Fatalf("seed %d step %d: refused a slot %s within deadline %s", seed, step, at.Sub(t0), deadline.Sub(t0))
					}
					continue
				}
				waiting = append(waiting, at)
			}
			if err := checkSpans(append(slices.Clone(used), waiting...), n, per); err != "" {
				t.Fatalf("seed %d step %d (n %d, per %s): %s", seed, step, n, per, err)
			}
		}
	}
}

// earliest is the first time at or after now at which a slot fits among
// live, found by trying every time a span can free up.
func earliest(live []time.Time, n int, per time.Duration, now time.Time) time.Time {
	// Slots a whole span before now cannot share one with the new slot.
	live = slices.DeleteFunc(slices.Clone(live), func(s time.Time) bool { return !s.After(now.Add(-per)) })
	cands := []time.Time{now}
	for _, s := range live {
		if c := s.Add(per); c.After(now) {
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, time.Time.Compare)
	for _, c := range cands {
		if checkSpans(append(slices.Clone(live), c), n, per) == "" {
			return c
		}
	}
	panic("no slot fits")
}

// checkSpans describes a span of per holding more than n of slots, or
// returns "".
func checkSpans(slots []time.Time, n int, per time.Duration) string {
	slots = slices.Clone(slots)
	slices.SortFunc(slots, time.Time.Compare)
	for i := 0; i+n < len(slots); i++ {
		if d := slots[i+n].Sub(slots[i]); d < per {
			return fmt.Sprintf("%d slots within %s, quota %d per %s", n+1, d, n, per)
		}
	}
	return ""
}
