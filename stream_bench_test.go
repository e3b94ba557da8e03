package itick_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

// BenchmarkStreamEvents measures how many events a Stream decodes and
// delivers per second when the simulator pushes as fast as it is read:
// a mix of quotes, ticks, five-level depth books and candles for 50
// products on one connection.
func BenchmarkStreamEvents(b *testing.B) {
	c := newServerClient(b, httptest.NewServer(streamSim(wssim.Config{PushInterval: -1})), simToken)
	s := openStream(b, c, "stock", itick.WithBuffer(itick.DefaultStreamBuffer, itick.DropNewest))
	syms := make([]string, 50)
	for i := range syms {
		syms[i] = fmt.Sprintf("S%02d$US", i)
	}
	if err := s.Subscribe(within(b), syms, itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute)); err != nil {
		b.Fatal(err)
	}
	for range 100 { // warm up
		<-s.Events()
	}
	dropped := s.Dropped()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if _, ok := <-s.Events(); !ok {
			b.Fatalf("stream ended: %v", s.Err())
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(s.Dropped()-dropped)/float64(n), "dropped/event")
}
