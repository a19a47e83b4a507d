package results

import (
	"bytes"
	"errors"
	"testing"
)

func TestReadAllPolicies(t *testing.T) {
	rs := sample(2*blockMaxRecords+100, 1000) // 3 blocks
	data := encodeAll(t, rs)
	damaged := flip(data, len(data)-3) // the last block
	count := func(policy Policy, data []byte) (int, int, error, error) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		added := 0
		n, damage, err := ReadAll(r, SinkFunc(func(*Result) { added++ }), policy)
		return n, added, damage, err
	}
	if n, added, damage, err := count(Strict, data); n != len(rs) || added != n || damage != nil || err != nil {
		t.Errorf("clean, strict: %d %d %v %v", n, added, damage, err)
	}
	if n, _, damage, err := count(Strict, damaged); n != 2*blockMaxRecords || damage != nil || !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged, strict: %d %v %v", n, damage, err)
	}
	if n, added, damage, err := count(KeepBefore, damaged); n != 2*blockMaxRecords || added != n || !errors.Is(damage, ErrCorrupt) || err != nil {
		t.Errorf("damaged, keep before: %d %d %v %v", n, added, damage, err)
	}
}
