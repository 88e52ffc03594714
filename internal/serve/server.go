package serve

import (
	"context"
	"embed"
	"html/template"
	"io"
	"net/http"
	"runtime"

	"github.com/grove-sessions/grove/archive"
)

// Options are what a Server serves.
type Options struct {
	// Archive answers the pages. It is read from many requests at once.
	Archive *archive.Archive
	// API answers /api/…: it runs `grove --json` with args (a command,
	// its flags, then "--" and the positional arguments) against the
	// same index, writes the JSON document to w and returns the exit
	// status (SPEC §8: 0, 1 or 2). Nil: /api/… is 404.
	API func(ctx context.Context, args []string, w io.Writer) int
	// Hosts are the Host header values accepted besides localhost (with
	// the listening port): the listening address, "host:port" (SPEC §9; guard.go).
	Hosts []string
	// Port is the listening port, for "localhost:PORT".
	Port string
	// AnyIP accepts a Host that is an IP address with Port: the server
	// listens on every interface (0.0.0.0 or ::), where a DNS name can
	// only be rebound, an IP literal not.
	AnyIP bool
	// Events, when set, is where /events subscribes; nil answers 404.
	Events *Hub
	// Grove is how a copied command runs grove itself against this
	// index ("grove --db FILE"), for the resume commands grove must run
	// (a pi fork first); "" means "grove".
	Grove string
}

// Server is grove serve's HTTP handler (SPEC §9).
type Server struct {
	opts  Options
	a     *archive.Archive
	pages map[string]*template.Template
	mux   *http.ServeMux
	// heavy admits the pages whose cost grows with a session or a
	// workspace (tree, transcript, workspace) a few at a time: eight
	// transcripts of a 100,000-entry path at once held 900 MB.
	heavy chan struct{}
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New returns the handler of grove serve: the pages, /api, /events and
// /static, behind the rules of SPEC §9 (guard.go).
func New(opts Options) *Server {
	s := &Server{opts: opts, a: opts.Archive, mux: http.NewServeMux(), heavy: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}
	s.pages = parsePages()
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /w", s.oneAtATime(s.workspace))
	s.mux.HandleFunc("GET /s/{session}", s.oneAtATime(s.tree))
	s.mux.HandleFunc("GET /s/{session}/{leaf}", s.oneAtATime(s.transcript))
	s.mux.HandleFunc("GET /search", s.search)
	s.mux.HandleFunc("GET /static/{name}", staticFile)
	if opts.Events != nil {
		s.mux.Handle("GET /events", opts.Events)
	}
	if opts.API != nil {
		s.apiRoutes()
	}
	s.mux.HandleFunc("/", s.notFound)
	return s
}

// ServeHTTP applies the rules of SPEC §9 (Host, method, headers), then
// routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	guard(s.opts, s.mux).ServeHTTP(w, r)
}

// oneAtATime runs h once a place among s.heavy is free (or not at all when
// the page went away meanwhile).
func (s *Server) oneAtATime(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.heavy <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-s.heavy }()
		h(w, r)
	}
}
