package markettest

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FaultKind is a way a request can fail.
type FaultKind int

// The faults a Server can inject.
const (
	// FaultStatus answers with an HTTP status (503 unless Fault.Status says
	// otherwise) and a gateway body, optionally with a Retry-After.
	FaultStatus FaultKind = iota + 1
	// FaultLatency delays the response by Fault.Delay, then answers as usual.
	FaultLatency
	// FaultDrop closes the connection before any response.
	FaultDrop
	// FaultDropMidBody sends the headers and half the body, then resets the connection.
	FaultDropMidBody
	// FaultTruncate declares a Content-Length larger than the body it sends,
	// then closes the connection.
	FaultTruncate
	// FaultMalformed answers 200 with a body that is not JSON.
	FaultMalformed
	// FaultHang sends the headers, then nothing until the client gives up
	// or the server closes.
	FaultHang
)

var faultNames = [...]string{"", "status", "latency", "drop", "drop-mid-body", "truncate", "malformed", "hang"}

// String returns the fault's name, such as "drop-mid-body".
func (k FaultKind) String() string {
	if k >= 0 && int(k) < len(faultNames) {
		if k == 0 {
			return "none"
		}
		return faultNames[k]
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

// Fault describes failures to inject into the requests that match it.
type Fault struct {
	// Kind is how a matching request fails: FaultStatus, FaultDrop and
	// the others of FaultKind. FaultLatency delays it instead and lets it
	// through, or on to the next matching fault. Set it: a fault of the
	// zero Kind answers matching requests as usual, yet faults added
	// after it do not apply to them and Stats.Faults counts them.
	Kind FaultKind
	// Times is how many matching requests the fault applies to; 0 means
	// every matching request until ClearFaults.
	Times int
	// Path limits the fault to requests for one path, such as
	// "/stock/quotes"; empty matches every path.
	Path string
	// Code limits the fault to requests whose code or codes include it;
	// empty matches every request.
	Code string
	// Status is FaultStatus's HTTP status; 0 means 503.
	Status int
	// RetryAfter, when positive, is sent with FaultStatus as a Retry-After
	// header in whole seconds, rounded up.
	RetryAfter time.Duration
	// Delay is FaultLatency's added wait.
	Delay time.Duration

	left int // requests still to fail; -1: no end
}

func (f *Fault) status() int {
	if f.Status == 0 {
		return http.StatusServiceUnavailable
	}
	return f.Status
}

func (f *Fault) matches(r *http.Request) bool {
	if f.Path != "" && strings.TrimSuffix(f.Path, "/") != strings.TrimSuffix(r.URL.Path, "/") {
		return false
	}
	if f.Code != "" {
		q := r.URL.Query()
		if strings.TrimSpace(q.Get("code")) != f.Code && !slices.Contains(splitCodes(q.Get("codes")), f.Code) {
			return false
		}
	}
	return true
}

// Inject adds a fault. Faults apply in the order they were added: every
// matching latency fault adds its delay, then the first other matching
// fault decides how the request fails.
func (s *Server) Inject(f Fault) {
	f.left = f.Times
	if f.Times <= 0 {
		f.left = -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// FailNext answers the next n requests with HTTP status and a gateway body.
func (s *Server) FailNext(n, status int) {
	s.Inject(Fault{Kind: FaultStatus, Times: n, Status: status})
}

// AddLatency delays every request by d until ClearFaults.
func (s *Server) AddLatency(d time.Duration) {
	s.Inject(Fault{Kind: FaultLatency, Delay: d})
}

// ClearFaults removes every injected fault and switches random faults off.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
	s.random = nil
}

// RandomFaults makes a share of requests fail at random, reproducibly for
// a seed and an order of requests.
type RandomFaults struct {
	// Probability is the chance, from 0 to 1, that a request fails.
	Probability float64
	// Seed seeds the draws.
	Seed uint64
	// Kinds are the faults to draw from, evenly. Empty means FaultStatus,
	// FaultDrop, FaultDropMidBody, FaultTruncate and FaultMalformed.
	Kinds []FaultKind
	// Status is FaultStatus's HTTP status; 0 means 503.
	Status int
	// RetryAfter goes with FaultStatus, as in Fault.
	RetryAfter time.Duration
	// Delay is FaultLatency's wait, when Kinds holds it.
	Delay time.Duration
	// Path limits the faults to one path; empty matches every path.
	Path string
}

type randomFaults struct {
	cfg RandomFaults
	rng *rand.Rand
}

// SetRandomFaults switches random faults on with cfg, replacing earlier
// ones; a Probability of 0 switches them off. Injected faults come first.
func (s *Server) SetRandomFaults(cfg RandomFaults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cfg.Probability <= 0 {
		s.random = nil
		return
	}
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = []FaultKind{FaultStatus, FaultDrop, FaultDropMidBody, FaultTruncate, FaultMalformed}
	}
	cfg.Kinds = slices.Clone(cfg.Kinds)
	s.random = &randomFaults{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed))}
}

// pickFault consumes the faults r meets: the summed latency, and the one
// fault, if any, that decides how it fails.
func (s *Server) pickFault(r *http.Request) (*Fault, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var latency time.Duration
	var chosen *Fault
	kept := s.faults[:0]
	for _, f := range s.faults {
		use := f.matches(r) && (f.Kind == FaultLatency || chosen == nil)
		if use {
			if f.Kind == FaultLatency {
				latency += f.Delay
			} else {
				c := *f
				chosen = &c
			}
			if f.left > 0 {
				f.left--
			}
		}
		if f.left != 0 {
			kept = append(kept, f)
		}
	}
	clear(s.faults[len(kept):])
	s.faults = kept
	if chosen == nil && s.random != nil {
		cfg := s.random.cfg
		if (cfg.Path == "" || strings.TrimSuffix(cfg.Path, "/") == strings.TrimSuffix(r.URL.Path, "/")) &&
			s.random.rng.Float64() < cfg.Probability {
			kind := cfg.Kinds[s.random.rng.IntN(len(cfg.Kinds))]
			if kind == FaultLatency {
				latency += cfg.Delay
			} else {
				chosen = &Fault{Kind: kind, Status: cfg.Status, RetryAfter: cfg.RetryAfter}
			}
		}
	}
	if chosen != nil || latency > 0 {
		s.stats.Faults++
	}
	return chosen, latency
}
