package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"path"
	"sync"
	"time"

	"github.com/grove-sessions/grove/archive"
)

// asset is one static file: its bytes, type and ETag.
type asset struct {
	body []byte
	typ  string
	etag string
}

// assets are the files /static/ serves, by name: those of the embedded
// static directory and transcript.css, export's stylesheet. Nothing else
// is served from there, and no directory is listed (SPEC §9).
var assets = sync.OnceValue(func() map[string]asset {
	m := map[string]asset{}
	add := func(name string, body []byte) {
		typ := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
			".svg": "image/svg+xml"}[path.Ext(name)]
		sum := sha256.Sum256(body)
		m[name] = asset{body: body, typ: typ, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	entries, err := staticFS.ReadDir("static")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	for _, e := range entries {
		b, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		add(e.Name(), b)
	}
	add("transcript.css", []byte(archive.TranscriptCSS()))
	return m
})

// staticFile answers /static/{name} from assets, 404 for any other name.
func staticFile(w http.ResponseWriter, r *http.Request) {
	a, ok := assets()[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.typ)
	w.Header().Set("ETag", a.etag)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
