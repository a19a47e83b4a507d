package origin

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestParallelLoadsShareTheBudget: 8 add_recipe calls at once, each of a
// 60 MB route, with a 64 MB limit: the check and the reservation are one
// step, so one is loaded (201) and the other seven are refused (400),
// whatever the order they ran in.
func TestParallelLoadsShareTheBudget(t *testing.T) {
	sim, srv := newTestServer(t, Options{MaxRecipeMemory: 64 << 20})
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	msgs := make([]string, 8)
	start := make(chan struct{})
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := do(t, "POST", srv.URL+"/_admin/add_recipe", fmt.Sprintf(`{"route": "/r%d", "random_content": "60mb", "stages": [{"status": 200}]}`, i))
			statuses[i] = r.status
			var e apiError
			if json.Unmarshal(r.body, &e) == nil {
				msgs[i] = e.Error
			}
		}()
	}
	close(start)
	wg.Wait()
	loaded, refused := 0, 0
	for i, st := range statuses {
		switch {
		case st == 201:
			loaded++
		case st == 400 && strings.Contains(msgs[i], "more than the 64.0 MiB limit"):
			refused++
		default:
			t.Errorf("add_recipe %d: %d %q", i, st, msgs[i])
		}
	}
	if loaded != 1 || refused != 7 {
		t.Fatalf("%d loaded, %d refused; want 1 and 7 (statuses %v)", loaded, refused, statuses)
	}
	if n := len(sim.tab.Load().list); n != 1 {
		t.Errorf("%d routes in the table, want 1", n)
	}
	sim.budgetMu.Lock()
	left := sim.reserved
	sim.budgetMu.Unlock()
	if left != 0 {
		t.Errorf("%d bytes still reserved after every load ended", left)
	}
}
