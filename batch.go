package itick

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/transport"
)

// The batch calls: codes split into chunks the plan allows, sent at the
// client's concurrency, their results merged, and a failure every chunk
// would meet stopping the rest early.

// fetchBatch validates and normalises codes, sends them in chunks of the
// client's batch size at its concurrency, reads each chunk's answer with
// read, and merges the results, keeping only the codes each chunk asked
// for; done, if set, sees each chunk's result as it arrives. One chunk's
// error is returned as it is; with several chunks, the results that arrived
// come back with a *BatchError naming the codes that did not. Until the
// client has had a success, chunks go one at a time, so a refused token
// costs one request; a failure that every chunk would meet stops the batch
// early (see batchStop).
func fetchBatch[T any](ctx context.Context, c *Client, path string, region Region, codes []string,
	extra url.Values, read codec.Reader[map[string]T], done func(map[string]T)) (map[string]T, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	norm, err := batch.Normalize(codes)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	return fetchChunks(ctx, c, path, region, norm, caseTwins(norm), extra, read, done)
}

// fetchChunks is fetchBatch of codes already checked and normalised;
// twins are the codes of the whole call that another code of it matches
// but for case (see caseTwins).
func fetchChunks[T any](ctx context.Context, c *Client, path string, region Region, norm []string,
	twins map[string]bool, extra url.Values, read codec.Reader[map[string]T], done func(map[string]T)) (map[string]T, error) {
	chunks := batch.Split(norm, c.batchSize)
	results := make([]map[string]T, len(chunks))
	fetch := func(ctx context.Context, i int) error {
		q := query(region)
		for k, v := range extra {
			q[k] = v
		}
		q.Set("codes", joinCodes(chunks[i]))
		got, err := get(ctx, c, path, q, read)
		if err != nil {
			return err
		}
		keepAsked(got, chunks[i], twins)
		if done != nil {
			done(got)
		}
		results[i] = got
		return nil
	}
	if len(chunks) == 1 {
		// One request needs neither a schedule nor a merge.
		if err := fetch(ctx, 0); err != nil {
			return nil, err
		}
		if results[0] == nil {
			return map[string]T{}, nil
		}
		return results[0], nil
	}
	// Until one request has succeeded, chunks go one at a time: the first
	// one tells whether the token and the plan are good.
	first := 0
	var errs []error
	for ; first < len(chunks)-1 && !c.confirmed.Load(); first++ {
		err := batch.RunUntil(ctx, 1, 1, func(ctx context.Context, _ int) error { return fetch(ctx, first) }, batchStop)[0]
		errs = append(errs, err)
		if err != nil && batchStop(err) != batch.Continue {
			for range chunks[first+1:] {
				errs = append(errs, err) // not sent: they would meet the same
			}
			first = len(chunks)
			break
		}
	}
	if first < len(chunks) {
		errs = append(errs, batch.RunUntil(ctx, len(chunks)-first, c.concurrency, func(ctx context.Context, i int) error {
			return fetch(ctx, first+i)
		}, batchStop)...)
	}
	for _, err := range errs {
		if err != nil && batchStop(err) == batch.Abort {
			return nil, err
		}
	}

	merged := make(map[string]T, len(norm))
	for _, r := range results {
		for k, v := range r {
			merged[k] = v
		}
	}
	var be BatchError
	for i, err := range errs {
		if err != nil {
			be.Chunks = append(be.Chunks, ChunkError{Codes: chunks[i], Err: err})
		}
	}
	if len(be.Chunks) > 0 {
		return merged, &be
	}
	return merged, nil
}

// keepAsked keeps in got only the codes the chunk asked for: a result map
// holds only requested codes. A code the service answered in another case
// ("AAPL" for "aapl") is kept under the code asked when it is the only
// candidate: no code of the call is a twin of it (see caseTwins), the
// service did not also answer the code as asked, and no other key of the
// answer matches it but for case. Anything else is dropped, not guessed.
func keepAsked[T any](got map[string]T, asked []string, twins map[string]bool) {
	var strays []string
	for k := range got {
		if !slices.Contains(asked, k) {
			strays = append(strays, k)
		}
	}
	if len(strays) == 0 {
		return
	}
	// Each code asked that is no twin claims the strays that match it but
	// for case; one matched by two strays keeps neither ("").
	byFold := make(map[string]string, len(asked))
	for _, c := range asked {
		if !twins[c] {
			byFold[foldCase(c)] = c
		}
	}
	claims := make(map[string]string)
	for _, k := range strays {
		c, ok := byFold[foldCase(k)]
		if !ok || !strings.EqualFold(c, k) {
			continue
		}
		if _, taken := claims[c]; taken {
			claims[c] = ""
		} else {
			claims[c] = k
		}
	}
	for c, k := range claims {
		if _, exact := got[c]; !exact && k != "" {
			got[c] = got[k]
		}
	}
	for _, k := range strays {
		delete(got, k)
	}
}

// caseTwins returns the codes that another code of codes matches but for
// case ("aapl" and "AAPL"), nil when there are none: an answer in another
// case could be meant for either, so none is guessed for them.
func caseTwins(codes []string) map[string]bool {
	if len(codes) < 2 {
		return nil
	}
	var twins map[string]bool
	seen := make(map[string]string, len(codes))
	for _, c := range codes {
		key := foldCase(c)
		if other, dup := seen[key]; dup {
			if twins == nil {
				twins = make(map[string]bool)
			}
			twins[c], twins[other] = true, true
			continue
		}
		seen[key] = c
	}
	return twins
}

// foldCase is the key under which codes that match but for case meet.
func foldCase(code string) string { return strings.ToLower(strings.ToUpper(code)) }

// MissingCodes returns the codes of a batch call that its result lacks, in
// request order, normalised as the batch calls normalise them (trimmed,
// each once); codes a batch call refuses are skipped. It tells which
// products came back empty: the service answers a market outside the plan
// with no data and no error.
func MissingCodes[V any](codes []string, got map[string]V) []string {
	var out []string
	seen := make(map[string]struct{}, len(codes))
	for _, raw := range codes {
		code, err := batch.Code(raw)
		if err != nil {
			continue
		}
		if _, dup := seen[code]; dup {
			continue
		}
		seen[code] = struct{}{}
		if _, ok := got[code]; !ok {
			out = append(out, code)
		}
	}
	return out
}

// batchStop says what one chunk's error means for the others. A refused
// token or a plan limit fails every chunk alike, so the batch is aborted and
// that error returned alone, without spending more quota. A 429 whose
// Retry-After the client does not wait for, a 429 whose wait would pass
// the deadline, or a limiter slot past it, would meet every later chunk
// too, so none is sent; those in flight may still bring results.
func batchStop(err error) batch.Stop {
	if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrPlanLimit) {
		return batch.Abort
	}
	var apiErr *APIError
	var quota *quotaError
	var refused *refusedError
	if errors.Is(err, ErrRateLimited) && (errors.As(err, &quota) || errors.As(err, &refused) ||
		errors.As(err, &apiErr) && apiErr.RetryAfter > transport.MaxRetryAfter) {
		return batch.Drain
	}
	return batch.Continue
}

func joinCodes(codes []string) string {
	n := len(codes) - 1
	for _, c := range codes {
		n += len(c)
	}
	b := make([]byte, 0, n)
	for i, c := range codes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	return string(b)
}
