package bm25

import "math/bits"

// Lucene's one-byte length encoding (org.apache.lucene.util.SmallFloat,
// intToByte4/byte4ToInt, used by BM25Similarity for norms since Lucene 7):
// lengths below numFreeValues (24) are stored exactly, longer ones with 4
// significant bits, rounded down.

// longToInt4 is SmallFloat.longToInt4: a float-like code with 3 mantissa
// bits, for i ≥ 0.
func longToInt4(i uint64) int {
	numBits := 64 - bits.LeadingZeros64(i)
	if numBits < 4 {
		return int(i) // subnormal
	}
	shift := numBits - 4
	encoded := int(i>>uint(shift)) & 0x07 // the leading bit is implicit
	return encoded | (shift+1)<<3
}

// int4ToLong is SmallFloat.int4ToLong, the inverse of longToInt4 (lossy).
func int4ToLong(i int) uint64 {
	b := uint64(i & 0x07)
	shift := (i >> 3) - 1
	if shift == -1 {
		return b // subnormal
	}
	return (b | 0x08) << uint(shift)
}

// maxInt4 = longToInt4(math.MaxInt32) = 231; numFreeValues = 255 − 231 = 24.
var numFreeValues = 255 - longToInt4(1<<31-1)

// intToByte4 is SmallFloat.intToByte4 for a length n ≥ 0 (n ≤ MaxInt32).
func intToByte4(n int) byte {
	if n < numFreeValues {
		return byte(n)
	}
	return byte(numFreeValues + longToInt4(uint64(n-numFreeValues)))
}

// byte4ToInt is SmallFloat.byte4ToInt: the length a norm byte stands for.
func byte4ToInt(b byte) int {
	i := int(b)
	if i < numFreeValues {
		return i
	}
	return numFreeValues + int(int4ToLong(i-numFreeValues))
}
