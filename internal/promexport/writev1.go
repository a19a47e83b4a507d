package promexport

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// writeRequestV1 is Prometheus' remote write 1.0 message
// (prometheus.WriteRequest: timeseries of labels and samples), which every
// receiver accepts, encoded here with protowire instead of importing
// Prometheus' own module for four small messages. It implements the sized
// marshalling the remote write client uses.
type writeRequestV1 struct{ enc []byte }

// v1Request encodes the samples as one WriteRequest.
func v1Request(ss []sample) *writeRequestV1 {
	var b []byte
	for _, s := range ss {
		var ts []byte
		for i := 0; i+1 < len(s.labels); i += 2 {
			var l []byte
			l = protowire.AppendTag(l, 1, protowire.BytesType)
			l = protowire.AppendString(l, s.labels[i])
			l = protowire.AppendTag(l, 2, protowire.BytesType)
			l = protowire.AppendString(l, s.labels[i+1])
			ts = protowire.AppendTag(ts, 1, protowire.BytesType)
			ts = protowire.AppendBytes(ts, l)
		}
		var smp []byte
		smp = protowire.AppendTag(smp, 1, protowire.Fixed64Type)
		smp = protowire.AppendFixed64(smp, math.Float64bits(s.value))
		smp = protowire.AppendTag(smp, 2, protowire.VarintType)
		smp = protowire.AppendVarint(smp, uint64(s.ts))
		ts = protowire.AppendTag(ts, 2, protowire.BytesType)
		ts = protowire.AppendBytes(ts, smp)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, ts)
	}
	return &writeRequestV1{enc: b}
}

// Size is the encoded size.
func (w *writeRequestV1) Size() int { return len(w.enc) }

// MarshalToSizedBuffer writes the message at the end of dst, as gogo
// protobuf's generated code does, and returns its length.
func (w *writeRequestV1) MarshalToSizedBuffer(dst []byte) (int, error) {
	return copy(dst[len(dst)-len(w.enc):], w.enc), nil
}
