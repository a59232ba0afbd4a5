package ctxwait

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Errorf("Sleep(background, 1ms) = false, want true")
	}
	if !Sleep(context.Background(), 0) {
		t.Errorf("Sleep(background, 0) = false, want true")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Errorf("Sleep(cancelled, 1h) = true, want false")
	}
	if Sleep(ctx, 0) {
		t.Errorf("Sleep(cancelled, 0) = true, want false")
	}
}
