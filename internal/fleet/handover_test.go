package fleet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The collector follows a file while it is written, takes every byte once
// the attack has ended, resumes from an offset, and the pod's hold ends as
// soon as the file is collected.
func TestCollectFollowsUntilEndedThenReleasesThePod(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shard-0.lll")
	ctx := context.Background()
	var out bytes.Buffer
	var code int
	var err error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, err = Collect(ctx, file, 0, &out, 5*time.Millisecond)
	}()
	held := make(chan bool)
	go func() { held <- Hold(ctx, file, time.Minute, 5*time.Millisecond) }()
	var want []byte
	f, _ := os.Create(file)
	for i := 0; i < 50; i++ {
		chunk := bytes.Repeat([]byte{byte(i)}, 1000+i)
		f.Write(chunk)
		want = append(want, chunk...)
		if i%10 == 0 {
			time.Sleep(2 * time.Millisecond) // the attack writing as it goes
		}
	}
	f.Close()
	if err := MarkEnded(file, 3); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err != nil || code != 3 || !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("collect: code %d err %v, %d bytes of %d", code, err, out.Len(), len(want))
	}
	if !<-held {
		t.Fatal("the pod kept holding a collected file")
	}
	// A collector cut off resumes where it was.
	var rest bytes.Buffer
	if _, err := Collect(ctx, file, 1234, &rest, time.Millisecond); err != nil || !bytes.Equal(rest.Bytes(), want[1234:]) {
		t.Fatalf("resume: %v, %d bytes", err, rest.Len())
	}
}

// An attack that ended without a results file is an error, not a hang;
// a hold ends when its time is up.
func TestCollectWithoutFileAndHoldTimeout(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shard-1.lll")
	MarkEnded(file, 2)
	if _, err := Collect(context.Background(), file, 0, &bytes.Buffer{}, time.Millisecond); err == nil {
		t.Fatal("no error for a missing file")
	}
	if Hold(context.Background(), file, 20*time.Millisecond, time.Millisecond) {
		t.Fatal("hold says collected")
	}
}
