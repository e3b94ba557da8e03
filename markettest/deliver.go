package markettest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// write sends resp the way fault kind says: whole, cut, malformed, or
// not at all.
func (s *Server) write(w http.ResponseWriter, r *http.Request, resp response, kind FaultKind) {
	switch kind {
	case FaultDrop:
		s.hijack(w, func(conn net.Conn) { abort(conn) })
		return
	case FaultDropMidBody:
		s.hijack(w, func(conn net.Conn) {
			writeRaw(conn, resp, len(resp.body), resp.body[:len(resp.body)/2])
			abort(conn)
		})
		return
	case FaultTruncate:
		s.hijack(w, func(conn net.Conn) {
			writeRaw(conn, resp, len(resp.body)+64, resp.body)
			conn.Close()
		})
		return
	case FaultMalformed:
		resp = response{status: http.StatusOK, header: jsonHeader(),
			body: []byte(`{"code":0,"msg":null,"data":{"s":"` + "\x00" + `,]`)}
	case FaultHang:
		for k, v := range resp.header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.status)
		http.NewResponseController(w).Flush() //nolint:errcheck // the client may be gone already.
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		// Ending normally would finish the chunked body; cut it instead.
		panic(http.ErrAbortHandler)
	}
	for k, v := range resp.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.body)))
	w.WriteHeader(resp.status)
	if r.Method != http.MethodHead {
		w.Write(resp.body) //nolint:errcheck // the client may be gone already.
	}
}

// hijack takes the connection over for a fault; when the ResponseWriter
// cannot hand it over, the response is cut as an HTTP/2 server would: the
// handler panics with http.ErrAbortHandler.
func (s *Server) hijack(w http.ResponseWriter, f func(net.Conn)) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	buf.Flush() //nolint:errcheck // nothing is buffered yet.
	f(conn)
}

// writeRaw writes a status line and headers declaring contentLength, then body.
func writeRaw(conn net.Conn, resp response, contentLength int, body []byte) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", resp.status, http.StatusText(resp.status))
	for k, vs := range resp.header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n", contentLength)
	b.Write(body)
	conn.Write(b.Bytes()) //nolint:errcheck // the client may be gone already.
}

// abort closes a connection with a reset rather than an orderly close.
func abort(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // best effort.
	}
	conn.Close()
}

// sleep waits d unless the client leaves or the server closes first.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}
