package site

import (
	"net/http/httptest"
	"testing"

	"github.com/loadlab/loadlab/internal/archive"
)

// readOnly is an archive the site can only read: no Add, no Close.
type readOnly struct{ archive.Reader }

// The site is given a view that only reads (archive.Reader): over one it
// shows the real closed-loop runs' index and pages as over the whole
// store.
func TestSiteReadsAReadOnlyView(t *testing.T) {
	_, store, ids := closedSite(t)
	srv := httptest.NewServer(New(readOnly{store}, Options{}))
	t.Cleanup(srv.Close)
	cells := map[string]string{}
	for _, m := range loadCell.FindAllStringSubmatch(mustGet(t, srv, "/"), -1) {
		cells[m[1]] = m[2]
	}
	if cells[ids[sweepDir]] != "4-16 users" || cells[ids[sixteenDir]] != "16 users" || len(cells) != 4 {
		t.Errorf("the index over a read-only view: %v", cells)
	}
	for _, id := range ids {
		mustGet(t, srv, "/runs/"+id)
	}
}
