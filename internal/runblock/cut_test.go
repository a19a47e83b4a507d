package runblock

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/results"
)

// result is one request due at t0+due, sent lag late, answered in lat.
func result(t0 time.Time, due, lag, lat time.Duration, code uint16) *results.Result {
	return &results.Result{Due: t0.Add(due), Sent: t0.Add(due + lag), Latency: lat, Code: code}
}

func TestCutterBlocks(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewCutter(time.Time{}, 0)
	// 100 requests a second for 25 s, in completion order: a request due
	// at 7.5 s is answered after the next 20 s of requests (a late result
	// reopens an encoded block); the requests due in 10..12 s were sent
	// 300 ms late (a machine pause).
	var late *results.Result
	for i := range 2500 {
		due := time.Duration(i) * 10 * time.Millisecond
		lag := 100 * time.Microsecond
		if due >= 10*time.Second && due < 12*time.Second {
			lag = 300 * time.Millisecond
		}
		r := result(t0, due, lag, 5*time.Millisecond, 200)
		if i == 750 {
			r.Code, r.Latency = 0, 20*time.Second
			late = r
			continue
		}
		if i == 150 { // an error
			r.Code = 500
		}
		c.Add(r)
	}
	c.Add(late)
	blocks := c.Blocks()
	if len(blocks) != 13 {
		t.Fatalf("%d blocks, want 13 (12 of 2 s and one of about 1 s)", len(blocks))
	}
	var total uint64
	for i, b := range blocks {
		total += b.Requests
		if b.Start != time.Duration(i)*BlockLength {
			t.Errorf("block %d starts at %v", i, b.Start)
		}
		h, err := DecodeHistogram(b.Hist)
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		if uint64(h.TotalCount()) != b.Requests {
			t.Errorf("block %d: histogram of %d, %d requests", i, h.TotalCount(), b.Requests)
		}
	}
	if total != 2500 {
		t.Errorf("%d requests in the blocks, want 2500", total)
	}
	if b := blocks[0]; b.Requests != 200 || b.OK != 199 {
		t.Errorf("block 0: %d requests %d ok, want 200 and 199", b.Requests, b.OK)
	}
	if b := blocks[3]; b.OK != 199 {
		t.Errorf("block 3 (holding the late failed result): %d ok, want 199", b.OK)
	}
	if b := blocks[5]; b.LagP99 < 290*time.Millisecond {
		t.Errorf("the block of the pause has lag p99 %v, want about 300ms", b.LagP99)
	}
	if b := blocks[4]; b.LagP99 > time.Millisecond {
		t.Errorf("the block before the pause has lag p99 %v", b.LagP99)
	}
	if last := blocks[12]; last.Length != 991*time.Millisecond {
		t.Errorf("last block %v long, want 991ms (its last request is due 990 ms into it)", last.Length)
	}
	h := c.Health()
	if h.LagP99 < 290*time.Millisecond || h.LagP50 > time.Millisecond || h.Noise <= NoisyLagShare {
		t.Errorf("health %+v: want lag p99 about 300ms, p50 about 0.1ms, noisy", h)
	}
	if noisy, why := h.Judge(); !noisy || !strings.Contains(why, "schedule lag") {
		t.Errorf("Judge = %v %q", noisy, why)
	}
	if h.Busy != Unknown || h.GeneratorCPU != Unknown {
		t.Errorf("results alone cannot tell the machine's shares: %+v", h)
	}
}

func TestCutterDueBeforeOrigin(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewCutter(t0, time.Second)
	c.Add(result(t0, 1500*time.Millisecond, 0, time.Millisecond, 200))
	c.Add(result(t0, -300*time.Millisecond, 0, time.Millisecond, 200))
	c.Add(result(t0, 3200*time.Millisecond, 0, time.Millisecond, 200))
	b := c.Blocks()
	want := []uint64{1, 0, 1, 0, 1}
	if len(b) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(b), len(want), b)
	}
	for i, n := range want {
		if b[i].Requests != n || b[i].Start != time.Duration(i)*time.Second || (n == 0) != (b[i].Hist == nil) {
			t.Errorf("block %d: %+v, want %d requests", i, b[i], n)
		}
	}
	if NewCutter(time.Time{}, 0).Blocks() != nil || NewCutter(time.Time{}, 0).Health().Known() {
		t.Error("an empty stream has blocks or a known health")
	}
}

func TestEncodeDecodeBlocks(t *testing.T) {
	t0 := time.Now()
	c := NewCutter(t0, 0)
	for i := range 500 {
		c.Add(result(t0, time.Duration(i)*20*time.Millisecond, time.Duration(i)*time.Microsecond, 3*time.Millisecond, 200))
	}
	blocks := c.Blocks()
	enc := EncodeBlocks(blocks)
	got, err := DecodeBlocks(enc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(blocks) {
		t.Fatalf("%d blocks back, want %d", len(got), len(blocks))
	}
	for i := range got {
		if got[i].Start != blocks[i].Start || got[i].Length != blocks[i].Length || got[i].Requests != blocks[i].Requests ||
			got[i].OK != blocks[i].OK || got[i].LagP99 != blocks[i].LagP99 || !bytes.Equal(got[i].Hist, blocks[i].Hist) {
			t.Errorf("block %d: %+v, want %+v", i, got[i], blocks[i])
		}
	}
	if b, err := DecodeBlocks(EncodeBlocks(nil)); err != nil || len(b) != 0 {
		t.Errorf("no blocks: %v %v", b, err)
	}

	// hostile or damaged encodings are refused before allocating
	huge := append([]byte(codecMagic), 0xff, 0xff, 0xff, 0xff, 0x0f) // 4G blocks in no bytes
	if _, err := DecodeBlocks(huge); err == nil || !strings.Contains(err.Error(), "blocks in") {
		t.Errorf("a count of 4G blocks: %v", err)
	}
	longHist := append([]byte(codecMagic), 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f) // a histogram of 256 MB
	if _, err := DecodeBlocks(longHist); err == nil || !strings.Contains(err.Error(), "histogram of") {
		t.Errorf("a histogram length past the bytes: %v", err)
	}
	if _, err := DecodeBlocks(append(enc, 0)); err == nil {
		t.Error("a trailing byte was accepted")
	}
	if _, err := DecodeBlocks(enc[:len(enc)-3]); err == nil {
		t.Error("a truncated encoding was accepted")
	}
	if _, err := DecodeBlocks([]byte("LLRB\x02")); err == nil {
		t.Error("a newer version was accepted")
	}
}

func TestDecodeHistogramRefusesOtherRanges(t *testing.T) {
	wide := hdrhistogram.New(1, 1<<62, 5) // would take gigabytes to decode
	wide.RecordValue(5)
	enc, err := wide.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeHistogram(enc); err == nil || !strings.Contains(err.Error(), "not loadlab's latency histogram") {
		t.Errorf("a histogram of another range: %v", err)
	}
	if _, err := DecodeHistogram([]byte("not base64!")); err == nil {
		t.Error("garbage decoded")
	}
}

func TestHealthText(t *testing.T) {
	h := LagHealth(100*time.Microsecond, 1200*time.Microsecond, 40*time.Millisecond).WithMachine(Health{GeneratorCPU: 0.42, GeneratorSaturated: 0, Busy: 0.31, Steal: 0})
	if got, want := h.Line(), "generator CPU 0.42 cores, busy 31%, steal 0%, lag p99 1.2ms (3% of p99)"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if got := h.Short(); got != "lag 3% busy 31%" {
		t.Errorf("Short = %q", got)
	}
	stolen := h
	stolen.Steal = 0.2
	if got := stolen.Short(); got != "noisy" {
		t.Errorf("Short of a run 20%% stolen = %q", got)
	}
	if !strings.Contains(stolen.Line(), "noisy: the hypervisor stole 20%") {
		t.Errorf("Line of a stolen run: %q", stolen.Line())
	}
	u := UnknownHealth()
	if u.Short() != "-" || u.Line() != "" || u.Known() {
		t.Errorf("unknown health: %q %q %v", u.Short(), u.Line(), u.Known())
	}
	if noisy, _ := u.Judge(); noisy {
		t.Error("an unknown health judged noisy")
	}
}

func TestCombine(t *testing.T) {
	quiet := LagHealth(time.Millisecond/10, time.Millisecond, 100*time.Millisecond).WithMachine(Health{GeneratorCPU: 0.2, GeneratorSaturated: 0, Busy: 0.2, Steal: 0})
	paused := LagHealth(time.Millisecond, 300*time.Millisecond, 400*time.Millisecond).WithMachine(Health{GeneratorCPU: 0.5, GeneratorSaturated: 0.5, Busy: 0.8, Steal: 0.1})
	c := Combine([]Health{quiet, paused, UnknownHealth()}, []time.Duration{3 * time.Second, time.Second, time.Second})
	if c.LagP99 != 300*time.Millisecond || c.LagP50 != time.Millisecond || c.Noise != 0.75 {
		t.Errorf("lag of the whole %v/%v noise %v: want the worst part's", c.LagP50, c.LagP99, c.Noise)
	}
	if math.Abs(c.Busy-0.35) > 1e-9 || math.Abs(c.GeneratorCPU-0.275) > 1e-9 || math.Abs(c.Steal-0.025) > 1e-9 || math.Abs(c.GeneratorSaturated-0.125) > 1e-9 {
		t.Errorf("shares %+v: want the means weighted by wall time", c)
	}
	if u := Combine(nil, nil); u.Known() {
		t.Errorf("the health of nothing: %+v", u)
	}
}
