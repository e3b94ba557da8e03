package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      []string
		want    []string
		wantErr string
	}{
		{"trims and keeps order", []string{" 700", "9988 ", "\t3690\n"}, []string{"700", "9988", "3690"}, ""},
		{"drops repeats after trimming", []string{"700", " 700", "700 ", "9988", "700"}, []string{"700", "9988"}, ""},
		{"keeps case", []string{"aapl", "AAPL", "Aapl", "aapl"}, []string{"aapl", "AAPL", "Aapl"}, ""},
		{"nil", nil, nil, "empty"},
		{"empty slice", []string{}, nil, "empty"},
		{"empty code", []string{"700", ""}, nil, "codes[1]"},
		{"blank code", []string{"  "}, nil, "codes[0]"},
		{"comma", []string{"700", "EURUSD,GBPUSD"}, nil, `"EURUSD,GBPUSD"`},
		{"control character", []string{"70\x000"}, nil, "control"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Normalize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalize_DoesNotModifyInput(t *testing.T) {
	t.Parallel()
	in := []string{" a ", "b", " a "}
	if _, err := Normalize(in); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{" a ", "b", " a "}, in); diff != "" {
		t.Errorf("input changed (-want +got):\n%s", diff)
	}
}

func TestCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{" 700 ": "700", "BTCUSDT": "BTCUSDT", "es-mini": "es-mini"} {
		got, err := Code(in)
		if err != nil || got != want {
			t.Errorf("Code(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", " ", "a,b", "a\nb", "\x7f"} {
		if _, err := Code(in); err == nil {
			t.Errorf("Code(%q) accepted", in)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	codes := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	cases := []struct {
		n, size int
		want    []int
	}{
		{0, 10, []int{}},
		{1, 10, []int{1}},
		{10, 10, []int{10}},
		{11, 10, []int{10, 1}},
		{25, 10, []int{10, 10, 5}},
		{45, 20, []int{20, 20, 5}},
		{100, 50, []int{50, 50}},
		{3, 1, []int{1, 1, 1}},
		{3, 0, []int{1, 1, 1}},
		{3, -2, []int{1, 1, 1}},
	}
	for _, tc := range cases {
		in := codes(tc.n)
		chunks := Split(in, tc.size)
		sizes := []int{}
		var joined []string
		for _, c := range chunks {
			sizes = append(sizes, len(c))
			joined = append(joined, c...)
		}
		if diff := cmp.Diff(tc.want, sizes); diff != "" {
			t.Errorf("Split(%d codes, %d) sizes (-want +got):\n%s", tc.n, tc.size, diff)
		}
		if tc.n > 0 {
			if diff := cmp.Diff(in, joined); diff != "" {
				t.Errorf("Split(%d codes, %d) lost order (-want +got):\n%s", tc.n, tc.size, diff)
			}
		}
	}
}

// TestSplit_ChunksDoNotAlias: appending to one chunk cannot overwrite the next.
func TestSplit_ChunksDoNotAlias(t *testing.T) {
	t.Parallel()
	chunks := Split([]string{"a", "b", "c", "d"}, 2)
	_ = append(chunks[0], "X")
	if chunks[1][0] != "c" {
		t.Errorf("appending to chunk 0 changed chunk 1: %v", chunks[1])
	}
}

func TestRun_AllIndicesOnceWithinLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, limit, wantMax int }{{10, 3, 3}, {5, 1, 1}, {3, 8, 3}, {4, 0, 1}, {6, 6, 6}} {
		t.Run(fmt.Sprintf("n%d_limit%d", tc.n, tc.limit), func(t *testing.T) {
			t.Parallel()
			var inFlight, maxSeen atomic.Int64
			var mu sync.Mutex
			calls := map[int]int{}
			gate := make(chan struct{})
			var once sync.Once
			errs := Run(context.Background(), tc.n, tc.limit, func(ctx context.Context, i int) error {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					m := maxSeen.Load()
					if n <= m || maxSeen.CompareAndSwap(m, n) {
						break
					}
				}
				if n >= int64(tc.wantMax) {
					// A moment's hold lets a Run over its limit show it.
					once.Do(func() { time.AfterFunc(30*time.Millisecond, func() { close(gate) }) })
				}
				select {
				case <-gate:
				case <-time.After(5 * time.Second): // safety net: fewer in flight than expected
				}
				mu.Lock()
				calls[i]++
				mu.Unlock()
				if i%2 == 1 {
					return fmt.Errorf("odd %d", i)
				}
				return nil
			})
			if len(errs) != tc.n {
				t.Fatalf("%d errors, want %d", len(errs), tc.n)
			}
			for i := range tc.n {
				if calls[i] != 1 {
					t.Errorf("index %d called %d times", i, calls[i])
				}
				if (errs[i] != nil) != (i%2 == 1) {
					t.Errorf("errs[%d] = %v", i, errs[i])
				}
			}
			if m := maxSeen.Load(); m != int64(tc.wantMax) {
				t.Errorf("max in flight %d, want %d", m, tc.wantMax)
			}
		})
	}
}

func TestRun_Zero(t *testing.T) {
	t.Parallel()
	errs := Run(context.Background(), 0, 4, func(context.Context, int) error {
		t.Error("fn called")
		return nil
	})
	if len(errs) != 0 {
		t.Errorf("errs = %v", errs)
	}
}

// TestRun_CancelledSkipsUnstarted: once ctx ends, chunks not yet started
// are not started and report ctx's error.
func TestRun_CancelledSkipsUnstarted(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 2} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			var started atomic.Int64
			errs := Run(ctx, 10, limit, func(ctx context.Context, i int) error {
				started.Add(1)
				cancel()
				return ctx.Err()
			})
			if s := started.Load(); s > int64(limit) {
				t.Errorf("%d chunks started after the cancel, want at most %d", s, limit)
			}
			for i, err := range errs {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("errs[%d] = %v, want context.Canceled", i, err)
				}
			}
		})
	}
}

// TestRunUntil_Stops: an error judged Drain or Abort starts no further
// chunk and is the error of every chunk not started; Abort also cancels
// the chunks in flight, Drain lets them finish.
func TestRunUntil_Stops(t *testing.T) {
	t.Parallel()
	stopErr := errors.New("stop")
	otherErr := errors.New("other")
	for _, stop := range []Stop{Drain, Abort} {
		for _, limit := range []int{1, 3} {
			t.Run(fmt.Sprint(stop, limit), func(t *testing.T) {
				t.Parallel()
				var started atomic.Int64
				inFlight := make(chan struct{}, limit)
				var sawCancel atomic.Bool
				judged := make(chan struct{})
				var judgedOnce sync.Once
				errs := RunUntil(context.Background(), 20, limit, func(ctx context.Context, i int) error {
					started.Add(1)
					switch {
					case i == 0:
						// Fail once the other first chunks are in flight.
						for range limit - 1 {
							<-inFlight
						}
						return stopErr
					case i < limit:
						inFlight <- struct{}{}
						if stop == Abort {
							<-ctx.Done() // only the abort ends these
							sawCancel.Store(true)
							return ctx.Err()
						}
						<-judged // finish after the stop, as a chunk in flight would
						return nil
					}
					return otherErr
				}, func(err error) Stop {
					if err == stopErr {
						judgedOnce.Do(func() { close(judged) })
						return stop
					}
					return Continue
				})
				if s := started.Load(); s != int64(limit) {
					t.Errorf("%d chunks started, want the %d first ones", s, limit)
				}
				for i := limit; i < len(errs); i++ {
					if errs[i] != stopErr {
						t.Errorf("errs[%d] = %v, want the stopping error", i, errs[i])
					}
				}
				if stop == Abort && limit > 1 && !sawCancel.Load() {
					t.Error("the chunks in flight were not cancelled")
				}
				if stop == Drain {
					for i := 1; i < limit; i++ {
						if errs[i] != nil {
							t.Errorf("chunk %d in flight: err = %v, want it to finish", i, errs[i])
						}
					}
				}
			})
		}
	}
}
