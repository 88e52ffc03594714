package corpusgen

import (
	"math"
	"math/bits"
)

// rng is xoshiro256** seeded through splitmix64: small, fast, and fully
// specified here, so the corpus does not depend on how a Go release
// implements math/rand.
type rng struct{ s0, s1, s2, s3 uint64 }

// splitmix64 advances *x and returns the next splitmix64 output.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// newRNG returns a generator for the stream named by seed and the salts
// (for example a session's index), independent of every other stream.
func newRNG(seed int64, salts ...uint64) *rng {
	x := uint64(seed)
	for _, s := range salts {
		x = splitmix64(&x) ^ s
	}
	return &rng{splitmix64(&x), splitmix64(&x), splitmix64(&x), splitmix64(&x)}
}

func rotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// Uint64 returns 64 random bits.
func (r *rng) Uint64() uint64 {
	out := rotl(r.s1*5, 7) * 9
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = rotl(r.s3, 45)
	return out
}

// Intn returns a number in [0, n); n must be positive. The tiny bias of the
// multiply-shift reduction does not matter for a corpus.
func (r *rng) Intn(n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// Range returns a number in [lo, hi].
func (r *rng) Range(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// Float64 returns a number in [0, 1).
func (r *rng) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Chance reports true with probability p.
func (r *rng) Chance(p float64) bool { return r.Float64() < p }

// Norm returns a standard normal variate (Box–Muller, one half used).
func (r *rng) Norm() float64 {
	u := 1 - r.Float64() // (0, 1]
	v := r.Float64()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}

// dist is a log-normal size distribution given by its median and 90th
// percentile, clipped to [min, max]. Units are the caller's (bytes,
// milliseconds).
type dist struct {
	p50, p90, min, max float64
}

// z90 is the standard normal's 90th percentile.
const z90 = 1.2815515655446004

// Draw returns one value of d.
func (d dist) Draw(r *rng) int {
	sigma := math.Log(d.p90/d.p50) / z90
	v := d.p50 * math.Exp(sigma*r.Norm())
	return int(math.Max(d.min, math.Min(d.max, v)))
}

// permute is a bijection of uint32 keyed by salt: distinct counters give
// distinct ids, which makes entry ids unique within a session without a set.
func permute(x, salt uint32) uint32 {
	x ^= salt
	x *= 0x9e3779b1
	x ^= x >> 15
	x *= 0x85ebca77
	x ^= x >> 13
	x *= 0xc2b2ae3d
	x ^= x >> 16
	return x
}

const hexDigits = "0123456789abcdef"

// appendHex8 appends v as 8 lower-case hex digits: a pi entry id.
func appendHex8(b []byte, v uint32) []byte {
	for sh := 28; sh >= 0; sh -= 4 {
		b = append(b, hexDigits[(v>>uint(sh))&15])
	}
	return b
}

// uuid returns a random version 4 UUID in its 36-character text form.
func (r *rng) uuid() string {
	a, c := r.Uint64(), r.Uint64()
	a = a&^(0xf<<12) | 4<<12           // version 4
	c = c&^(0x3<<62) | uint64(0x2)<<62 // variant 10
	var b [36]byte
	i := 0
	put := func(v uint64, nibbles int) {
		for sh := (nibbles - 1) * 4; sh >= 0; sh -= 4 {
			b[i] = hexDigits[(v>>uint(sh))&15]
			i++
		}
	}
	put(a>>32, 8)
	b[i] = '-'
	i++
	put(a>>16, 4)
	b[i] = '-'
	i++
	put(a, 4)
	b[i] = '-'
	i++
	put(c>>48, 4)
	b[i] = '-'
	i++
	put(c, 12)
	return string(b[:])
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// appendBase62 appends n random base-62 characters (tool call ids).
func (r *rng) appendBase62(b []byte, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, base62[r.Intn(62)])
	}
	return b
}
