package wait

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	t.Parallel()
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep with a live context did not wait in full")
	}
	if !Sleep(context.Background(), 0) {
		t.Error("Sleep(0) with a live context reported an early end")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Error("Sleep with an ended context reported waiting in full")
	}
	if Sleep(ctx, 0) {
		t.Error("Sleep(0) with an ended context reported waiting in full")
	}
}
