package redisquota

import (
	"bytes"
	"sync"
)

// syncBuffer is a bytes.Buffer safe for concurrent use, for the lines a
// Limiter logs from its callers' goroutines and its own.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
