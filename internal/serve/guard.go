package serve

import (
	"net"
	"net/http"
	"slices"
	"strings"
)

// CSP is the Content-Security-Policy of every answer (SPEC §9): nothing
// inline, nothing from elsewhere, no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// guard is SPEC §9's rules in front of next: a Host header that is not
// the listening address, localhost or (AnyIP) an IP address with the
// port is refused with 403 (DNS rebinding); a method other than GET and
// HEAD with 405; every answer carries the CSP, nosniff and no-referrer.
func guard(o Options, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if !hostAllowed(o, r.Host) {
			http.Error(w, "grove serve: this Host ("+printable(r.Host)+") is not the address grove listens on; open http://localhost:"+o.Port+"/", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "grove serve only reads: GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a request's Host header names this server.
func hostAllowed(o Options, host string) bool {
	host = strings.ToLower(host)
	if slices.Contains(o.Hosts, host) {
		return true
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, "80" // no port: the default one
	}
	if port != o.Port {
		return false
	}
	if name == "localhost" {
		return true
	}
	if o.AnyIP {
		return net.ParseIP(strings.Trim(name, "[]")) != nil
	}
	return false
}

// printable is s with control characters and non-ASCII shown as '?', for
// an error text.
func printable(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > 100 {
		b = append(b[:100], "..."...)
	}
	return string(b)
}
