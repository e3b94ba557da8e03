// Package batch normalises lists of product codes, splits them into chunks
// and runs the chunks with bounded concurrency.
package batch

import (
	"context"
	"fmt"
	"strings"
	"sync"
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

// Code trims one product code and checks that the service can carry it.
func Code(raw string) (string, error) {
	c := strings.TrimSpace(raw)
	switch {
	case c == "":
		return "", fmt.Errorf("code %q is empty", raw)
	case strings.Contains(c, ","):
		return "", fmt.Errorf("code %q contains a comma", raw)
	case strings.ContainsFunc(c, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", fmt.Errorf("code %q contains a control character", raw)
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
// started; their error is ctx's.
func Run(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) []error {
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
	if limit == 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				continue
			}
			errs[i] = fn(ctx, i)
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
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = fn(ctx, i)
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
