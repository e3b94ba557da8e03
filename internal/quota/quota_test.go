package quota

import (
	"context"
	"errors"
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
