// Package batch checks product codes and regions, normalises lists of
// codes, splits them into chunks and runs the chunks with bounded
// concurrency.
package batch

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/d19c4e34/itick/internal/wait"
)

// Normalize trims each code and drops repeats, keeping the first occurrence
// and the caller's case. It reports the first empty code or code with a comma
// by its index.
func Normalize(codes []string) ([]string, error) {
	if len(codes) == 0 {
		return nil, fmt.Errorf("codes is empty")
	}
	out := make([]string, 0, len(codes))
	seen := make(map[string]struct{}, len(codes))
	for i, raw := range codes {
		c, err := Code(raw)
		if err != nil {
			return nil, fmt.Errorf("codes[%d]: %w", i, err)
		}
		if _, dup := seen[c]; dup {
			continue
		}
		seen[c] = struct{}{}
		out = append(out, c)
	}
	return out, nil
}

// Code trims one product code and checks that a REST request can carry
// it: not empty, no comma (the list separator), no control character, and
// no '$' (the stream's code$REGION form).
func Code(raw string) (string, error) {
	c := strings.TrimSpace(raw)
	switch {
	case c == "":
		return "", fmt.Errorf("code %q is empty", raw)
	case strings.Contains(c, ","):
		return "", fmt.Errorf("code %q contains a comma", raw)
	case strings.ContainsFunc(c, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", fmt.Errorf("code %q contains a control character", raw)
	case strings.Contains(c, "$"):
		name, region, _ := strings.Cut(c, "$")
		return "", fmt.Errorf("code %q has a '$': code$REGION is the stream's form; a REST call takes the code (%q) and the region (%q) apart", raw, name, region)
	}
	return c, nil
}

// Split cuts codes into chunks of at most size codes, in order.
func Split(codes []string, size int) [][]string {
	if size < 1 {
		size = 1
	}
	chunks := make([][]string, 0, (len(codes)+size-1)/size)
	for len(codes) > size {
		chunks = append(chunks, codes[:size:size])
		codes = codes[size:]
	}
	if len(codes) > 0 {
		chunks = append(chunks, codes)
	}
	return chunks
}

// Run calls fn for every chunk index, at most limit at a time, and returns
// each call's error by index. Chunks not yet started when ctx ends are not
// started; their error is ctx's, with its cause.
func Run(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) []error {
	return RunUntil(ctx, n, limit, fn, nil)
}

// Stop is what one chunk's error means for the rest of a batch.
type Stop int

const (
	// Continue runs the other chunks as if nothing happened.
	Continue Stop = iota
	// Drain starts no further chunk and lets those in flight finish.
	Drain
	// Abort starts no further chunk and cancels those in flight.
	Abort
)

// RunUntil is Run that asks judge, when a chunk fails, whether the batch
// should go on. Once a chunk's error drains or aborts the batch, no chunk
// starts after it and each one not started carries that error; an abort
// also cancels the context of the chunks in flight. judge is called for one
// error at a time; it may be nil: every error continues.
func RunUntil(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error, judge func(error) Stop) []error {
	errs := make([]error, n)
	if n == 0 {
		return errs
	}
	if limit < 1 {
		limit = 1
	}
	if limit > n {
		limit = n
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var stopped error // the error that stopped the batch
	// run runs chunk i unless the batch has stopped or ctx has ended. Each
	// index is run by one goroutine, so errs[i] needs no lock.
	run := func(i int) {
		mu.Lock()
		why := stopped
		mu.Unlock()
		if why == nil {
			why = wait.Err(ctx)
		}
		if why != nil {
			errs[i] = why
			return
		}
		err := fn(ctx, i)
		errs[i] = err
		if err == nil || judge == nil {
			return
		}
		// Judging under the lock means that a chunk that starts after
		// judge has returned Drain or Abort sees the stop.
		mu.Lock()
		stop := judge(err)
		if stop != Continue && stopped == nil {
			stopped = err
		}
		mu.Unlock()
		if stop == Abort {
			cancel()
		}
	}
	if limit == 1 {
		for i := range n {
			run(i)
		}
		return errs
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range limit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// Region checks a market code: letters, digits, '_' and '-', as the
// service's codes are, so that it cannot change the query or the stream's
// symbols it is put in.
func Region(r string) error {
	if r == "" {
		return fmt.Errorf("region is empty")
	}
	for _, c := range r {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return fmt.Errorf("region %q has a character other than letters, digits, '_' and '-'", r)
		}
	}
	return nil
}
