package markettest

import "time"

// window is a sliding-window quota: at most n admissions in any span.
// It is not safe for concurrent use; the Server guards it.
type window struct {
	n     int
	span  time.Duration
	times []time.Time // admissions inside the window, oldest first
}

func newWindow(n int, span time.Duration) *window { return &window{n: n, span: span} }

// admit records an admission at now when the window has room. Otherwise it
// reports how long until the oldest admission leaves the window.
func (w *window) admit(now time.Time) (time.Duration, bool) {
	cut := 0
	for cut < len(w.times) && !w.times[cut].Add(w.span).After(now) {
		cut++
	}
	if cut > 0 {
		w.times = append(w.times[:0], w.times[cut:]...)
	}
	if len(w.times) >= w.n {
		return w.times[0].Add(w.span).Sub(now), false
	}
	w.times = append(w.times, now)
	return 0, true
}

// admit counts a request against the quota; when it is spent it reports
// how long until the window has room.
func (s *Server) admit(now time.Time) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.quota == nil {
		return 0, true
	}
	return s.quota.admit(now)
}
