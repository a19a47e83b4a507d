package targets

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/bits"
)

// Rand is a small, fast, non-cryptographic random source (wyrand) for
// rendering templates. Each worker owns one; it is not safe for concurrent
// use.
type Rand struct{ s uint64 }

// NewRand returns a Rand seeded with seed, or from the OS when seed is 0.
func NewRand(seed uint64) *Rand {
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	return &Rand{s: seed}
}

// Seed restarts r from seed (mixed, so nearby seeds give unrelated
// streams).
func (r *Rand) Seed(seed uint64) {
	seed ^= seed >> 33
	seed *= 0xff51afd7ed558ccd
	seed ^= seed >> 33
	r.s = seed
}

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Below returns a uniform number in [0, n); n must be > 0.
func (r *Rand) Below(n uint64) uint64 {
	// Lemire's multiply-shift with rejection for exact uniformity.
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// appendChars appends n characters drawn uniformly from charset (at most
// 256 characters), using 16 random bits per character.
func (r *Rand) appendChars(dst []byte, charset string, n int) []byte {
	m := uint64(len(charset))
	for n > 0 {
		x := r.Uint64()
		for k := 0; k < 4 && n > 0; k++ {
			// (16-bit chunk * m) >> 16 maps to [0, m) with bias below 0.1% for m <= 64.
			dst = append(dst, charset[((x&0xffff)*m)>>16])
			x >>= 16
			n--
		}
	}
	return dst
}

// appendUUID appends a random RFC 4122 version-4 UUID.
func (r *Rand) appendUUID(dst []byte) []byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], r.Uint64())
	binary.LittleEndian.PutUint64(b[8:], r.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}
