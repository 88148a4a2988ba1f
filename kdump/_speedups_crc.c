/*
 * kdump._speedups, CRC-32C (crc32c) and CRC-32 (crc32): one slicing-by-8 routine
 * serves both polynomials, one argument reader both entry points; CRC-32C uses SSE 4.2
 * instructions where the CPU has them (three interleaved streams of crc32q), and from
 * 512 bytes carry-less multiplication (VPCLMULQDQ, on 512-bit registers with AVX-512,
 * else on 256-bit ones with AVX2) where it has those too.
 *
 * Each entry point's pure-Python twin is named in _speedups.c's table; shared
 * declarations are in _speedups.h.
 */
#include "_speedups.h"

/* ---------------------------------------------------------------------------------
 * Slicing-by-8 tables (reflected polynomials): CRC-32C (Castagnoli, as the crc32c
 * package computes it; RecordBatch's checksum) and CRC-32 (IEEE 802.3, zlib's crc32;
 * the checksum of legacy v0/v1 messages)
 * --------------------------------------------------------------------------------- */
#define CRC32C_POLY 0x82f63b78u
#define CRC32_POLY 0xedb88320u

typedef uint32_t CrcTable[8][256];
static CrcTable crc32c_table, crc32_table;

static void
slice8_init(CrcTable t, uint32_t poly)
{
    uint32_t n, c, k;
    for (n = 0; n < 256; n++) {
        c = n;
        for (k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ poly : c >> 1;
        t[0][n] = c;
    }
    for (n = 0; n < 256; n++) {
        c = t[0][n];
        for (k = 1; k < 8; k++) {
            c = t[0][c & 0xff] ^ (c >> 8);
            t[k][n] = c;
        }
    }
}

/* The CRC of p[0:n] continuing ``crc`` (0 to start), with the tables of ``t``. */
static uint32_t
slice8(const CrcTable t, uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~crc;
    while (n && ((uintptr_t)p & 7)) {
        c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        n--;
    }
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
            t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
            t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

static uint32_t
crc32c_sw(uint32_t crc, const unsigned char *p, size_t n)
{
    return slice8((const uint32_t(*)[256])crc32c_table, crc, p, n);
}

uint32_t
crc32_ieee(const unsigned char *p, size_t n)
{
    return slice8((const uint32_t(*)[256])crc32_table, 0, p, n);
}

uint32_t (*crc32c_impl)(uint32_t, const unsigned char *, size_t) = crc32c_sw;

/* ---------------------------------------------------------------------------------
 * CRC-32C with SSE 4.2 instructions on three interleaved streams (Mark Adler's
 * method), where the CPU has them
 * --------------------------------------------------------------------------------- */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define HAVE_CRC_HW 1
#define CRC_LONG 8192
#define CRC_SHORT 256
static uint32_t crc_long[4][256], crc_short[4][256];

static uint32_t
gf2_times(const uint32_t *mat, uint32_t vec)
{
    uint32_t sum = 0;
    while (vec) {
        if (vec & 1)
            sum ^= *mat;
        vec >>= 1;
        mat++;
    }
    return sum;
}

static void
gf2_square(uint32_t *square, const uint32_t *mat)
{
    int n;
    for (n = 0; n < 32; n++)
        square[n] = gf2_times(mat, mat[n]);
}

/* The operator that appends ``len`` zero bytes (a power of two) to a CRC register. */
static void
crc_zeros_op(uint32_t *even, size_t len)
{
    uint32_t odd[32], row = 1;
    int n;
    odd[0] = CRC32C_POLY;
    for (n = 1; n < 32; n++) {
        odd[n] = row;
        row <<= 1;
    }
    gf2_square(even, odd); /* two zero bits */
    gf2_square(odd, even); /* four */
    do {
        gf2_square(even, odd);
        len >>= 1;
        if (len == 0)
            return;
        gf2_square(odd, even);
        len >>= 1;
    } while (len);
    for (n = 0; n < 32; n++)
        even[n] = odd[n];
}

static void
crc_zeros(uint32_t zeros[][256], size_t len)
{
    uint32_t op[32], n;
    crc_zeros_op(op, len);
    for (n = 0; n < 256; n++) {
        zeros[0][n] = gf2_times(op, n);
        zeros[1][n] = gf2_times(op, n << 8);
        zeros[2][n] = gf2_times(op, n << 16);
        zeros[3][n] = gf2_times(op, n << 24);
    }
}

static inline uint32_t
crc_shift(uint32_t zeros[][256], uint32_t crc)
{
    return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^ zeros[2][(crc >> 16) & 0xff] ^
           zeros[3][crc >> 24];
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t crc, const unsigned char *next, size_t len)
{
    const unsigned char *end;
    uint64_t crc0, crc1, crc2, v0, v1, v2;
    crc0 = crc ^ 0xffffffffu;
    while (len && ((uintptr_t)next & 7) != 0) {
        crc0 = _mm_crc32_u8((uint32_t)crc0, *next);
        next++;
        len--;
    }
#ifdef __x86_64__
#define CRC_STEP(c, p)                                                                       \
    do {                                                                                     \
        memcpy(&v0, (p), 8);                                                                 \
        (c) = _mm_crc32_u64((c), v0);                                                        \
    } while (0)
    while (len >= CRC_LONG * 3) {
        crc1 = 0;
        crc2 = 0;
        end = next + CRC_LONG;
        do {
            memcpy(&v0, next, 8);
            memcpy(&v1, next + CRC_LONG, 8);
            memcpy(&v2, next + CRC_LONG * 2, 8);
            crc0 = _mm_crc32_u64(crc0, v0);
            crc1 = _mm_crc32_u64(crc1, v1);
            crc2 = _mm_crc32_u64(crc2, v2);
            next += 8;
        } while (next < end);
        crc0 = crc_shift(crc_long, (uint32_t)crc0) ^ crc1;
        crc0 = crc_shift(crc_long, (uint32_t)crc0) ^ crc2;
        next += CRC_LONG * 2;
        len -= CRC_LONG * 3;
    }
    while (len >= CRC_SHORT * 3) {
        crc1 = 0;
        crc2 = 0;
        end = next + CRC_SHORT;
        do {
            memcpy(&v0, next, 8);
            memcpy(&v1, next + CRC_SHORT, 8);
            memcpy(&v2, next + CRC_SHORT * 2, 8);
            crc0 = _mm_crc32_u64(crc0, v0);
            crc1 = _mm_crc32_u64(crc1, v1);
            crc2 = _mm_crc32_u64(crc2, v2);
            next += 8;
        } while (next < end);
        crc0 = crc_shift(crc_short, (uint32_t)crc0) ^ crc1;
        crc0 = crc_shift(crc_short, (uint32_t)crc0) ^ crc2;
        next += CRC_SHORT * 2;
        len -= CRC_SHORT * 3;
    }
    end = next + (len - (len & 7));
    while (next < end) {
        CRC_STEP(crc0, next);
        next += 8;
    }
    len &= 7;
#undef CRC_STEP
#else
    (void)crc1; (void)crc2; (void)v0; (void)v1; (void)v2; (void)end;
    while (len >= 4) {
        uint32_t w;
        memcpy(&w, next, 4);
        crc0 = _mm_crc32_u32((uint32_t)crc0, w);
        next += 4;
        len -= 4;
    }
#endif
    while (len) {
        crc0 = _mm_crc32_u8((uint32_t)crc0, *next);
        next++;
        len--;
    }
    return (uint32_t)crc0 ^ 0xffffffffu;
}

/* ---------------------------------------------------------------------------------
 * CRC-32C by carry-less multiplication, 256 bytes a step (issue 49), where the CPU has
 * AVX-512 and VPCLMULQDQ (AMD Zen 4 and later, Intel Ice Lake and later): four 512-bit
 * accumulators (sixteen 128-bit lanes) are folded forward 256 bytes at a time, then
 * into one another and into one 128-bit value, whose CRC the crc32 instruction takes
 * (so no Barrett reduction is needed); the bytes after the last whole step go to
 * crc32c_hw.  Folding a 128-bit lane forward by D bits multiplies its low (first) eight
 * bytes by x^(D+32) mod P and its high eight by x^(D-32) mod P, bit-reflected and
 * shifted left once (the reflected operands of PCLMULQDQ); fold_constant computes them.
 * Checked against the table-driven CRC at every length and alignment
 * (tests/native/test_speedups.py).
 * --------------------------------------------------------------------------------- */
#include <immintrin.h>
#define HAVE_CRC_FOLD 1

static uint64_t fold_2048[2], fold_512[2], fold_128[2];

static uint64_t
fold_constant(int bits)
{
    /* x^bits mod P (P = CRC-32C's polynomial, normal bit order), reflected, shifted */
    uint64_t r = 1, reflected = 0;
    int i;
    for (i = 0; i < bits; i++) {
        r <<= 1;
        if (r & ((uint64_t)1 << 32))
            r ^= ((uint64_t)1 << 32) | 0x1EDC6F41u;
    }
    for (i = 0; i < 32; i++)
        if (r & ((uint64_t)1 << i))
            reflected |= (uint64_t)1 << (31 - i);
    return reflected << 1;
}

#define FOLD_TARGET __attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2")))

FOLD_TARGET static inline __m512i
fold512(__m512i acc, __m512i k, __m512i data)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),
                                     _mm512_clmulepi64_epi128(acc, k, 0x11), data, 0x96);
}

FOLD_TARGET static inline __m128i
fold128(__m128i acc, __m128i k, __m128i data)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00),
                                       _mm_clmulepi64_si128(acc, k, 0x11)),
                         data);
}

FOLD_TARGET static uint32_t
crc32c_fold(uint32_t crc, const unsigned char *p, size_t len)
{
    __m512i a0, a1, a2, a3, k;
    __m128i k1, x;
    uint32_t state;
    if (len < 512)
        return crc32c_hw(crc, p, len);
    k = _mm512_set_epi64((long long)fold_2048[1], (long long)fold_2048[0],
                         (long long)fold_2048[1], (long long)fold_2048[0],
                         (long long)fold_2048[1], (long long)fold_2048[0],
                         (long long)fold_2048[1], (long long)fold_2048[0]);
    a0 = _mm512_xor_si512(_mm512_loadu_si512((const void *)p),
                          _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           (int)(crc ^ 0xffffffffu)));
    a1 = _mm512_loadu_si512((const void *)(p + 64));
    a2 = _mm512_loadu_si512((const void *)(p + 128));
    a3 = _mm512_loadu_si512((const void *)(p + 192));
    p += 256;
    len -= 256;
    while (len >= 256) {
        a0 = fold512(a0, k, _mm512_loadu_si512((const void *)p));
        a1 = fold512(a1, k, _mm512_loadu_si512((const void *)(p + 64)));
        a2 = fold512(a2, k, _mm512_loadu_si512((const void *)(p + 128)));
        a3 = fold512(a3, k, _mm512_loadu_si512((const void *)(p + 192)));
        p += 256;
        len -= 256;
    }
    k = _mm512_set_epi64((long long)fold_512[1], (long long)fold_512[0],
                         (long long)fold_512[1], (long long)fold_512[0],
                         (long long)fold_512[1], (long long)fold_512[0],
                         (long long)fold_512[1], (long long)fold_512[0]);
    a0 = fold512(a0, k, a1);
    a0 = fold512(a0, k, a2);
    a0 = fold512(a0, k, a3);
    k1 = _mm_set_epi64x((long long)fold_128[1], (long long)fold_128[0]);
    x = fold128(_mm512_extracti32x4_epi32(a0, 0), k1, _mm512_extracti32x4_epi32(a0, 1));
    x = fold128(x, k1, _mm512_extracti32x4_epi32(a0, 2));
    x = fold128(x, k1, _mm512_extracti32x4_epi32(a0, 3));
    state = (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));
    state = (uint32_t)_mm_crc32_u64(state, (uint64_t)_mm_extract_epi64(x, 1));
    return crc32c_hw(state ^ 0xffffffffu, p, len);
}

/* The same with 256-bit registers, where the CPU has VPCLMULQDQ and AVX2 but not
 * AVX-512 (AMD Zen 3, Intel Alder Lake and later client parts): four accumulators of
 * two lanes, 128 bytes a step. */
static uint64_t fold_1024[2], fold_256[2];

#define FOLD256_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

FOLD256_TARGET static inline __m256i
fold256(__m256i acc, __m256i k, __m256i data)
{
    return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(acc, k, 0x00),
                                             _mm256_clmulepi64_epi128(acc, k, 0x11)),
                            data);
}

FOLD256_TARGET static uint32_t
crc32c_fold256(uint32_t crc, const unsigned char *p, size_t len)
{
    __m256i a0, a1, a2, a3, k;
    __m128i k1, x;
    uint32_t state;
    if (len < 512)
        return crc32c_hw(crc, p, len);
    k = _mm256_set_epi64x((long long)fold_1024[1], (long long)fold_1024[0],
                          (long long)fold_1024[1], (long long)fold_1024[0]);
    a0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p),
                          _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)(crc ^ 0xffffffffu)));
    a1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    a2 = _mm256_loadu_si256((const __m256i *)(p + 64));
    a3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    p += 128;
    len -= 128;
    while (len >= 128) {
        a0 = fold256(a0, k, _mm256_loadu_si256((const __m256i *)p));
        a1 = fold256(a1, k, _mm256_loadu_si256((const __m256i *)(p + 32)));
        a2 = fold256(a2, k, _mm256_loadu_si256((const __m256i *)(p + 64)));
        a3 = fold256(a3, k, _mm256_loadu_si256((const __m256i *)(p + 96)));
        p += 128;
        len -= 128;
    }
    k = _mm256_set_epi64x((long long)fold_256[1], (long long)fold_256[0],
                          (long long)fold_256[1], (long long)fold_256[0]);
    a0 = fold256(a0, k, a1);
    a0 = fold256(a0, k, a2);
    a0 = fold256(a0, k, a3);
    k1 = _mm_set_epi64x((long long)fold_128[1], (long long)fold_128[0]);
    x = fold128(_mm256_castsi256_si128(a0), k1, _mm256_extracti128_si256(a0, 1));
    state = (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));
    state = (uint32_t)_mm_crc32_u64(state, (uint64_t)_mm_extract_epi64(x, 1));
    return crc32c_hw(state ^ 0xffffffffu, p, len);
}
#endif

void
crc_init(void)
{
    slice8_init(crc32c_table, CRC32C_POLY);
    slice8_init(crc32_table, CRC32_POLY);
#ifdef HAVE_CRC_HW
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) {
        crc_zeros(crc_long, CRC_LONG);
        crc_zeros(crc_short, CRC_SHORT);
        crc32c_impl = crc32c_hw;
        if (__builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("pclmul")) {
            fold_2048[0] = fold_constant(2048 + 32);
            fold_2048[1] = fold_constant(2048 - 32);
            fold_1024[0] = fold_constant(1024 + 32);
            fold_1024[1] = fold_constant(1024 - 32);
            fold_512[0] = fold_constant(512 + 32);
            fold_512[1] = fold_constant(512 - 32);
            fold_256[0] = fold_constant(256 + 32);
            fold_256[1] = fold_constant(256 - 32);
            fold_128[0] = fold_constant(128 + 32);
            fold_128[1] = fold_constant(128 - 32);
            if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
                crc32c_impl = crc32c_fold;
            else if (__builtin_cpu_supports("avx2"))
                crc32c_impl = crc32c_fold256;
        }
    }
#endif
}

/* ---------------------------------------------------------------------------------
 * crc32c(data, start=0, end=len(data)) -> int: CRC-32C of data[start:end]
 * crc32(data, start=0, end=len(data)) -> int: zlib.crc32 of data[start:end]
 * --------------------------------------------------------------------------------- */
static uint32_t
crc32_from_zero(uint32_t crc, const unsigned char *p, size_t n)
{
    (void)crc;
    return crc32_ieee(p, n);
}

/* ``name``(data, start=0, end=len(data)): ``fn`` of data[start:end], the positions
 * clamped to the data as a slice's are (empty when reversed), without the GIL. */
static PyObject *
crc_entry(const char *name, uint32_t (*fn)(uint32_t, const unsigned char *, size_t),
          PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start = 0, end;
    uint32_t crc;
    if (nargs < 1 || nargs > 3) {
        PyErr_Format(PyExc_TypeError, "%s(data, start=0, end=len(data))", name);
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    end = view.len;
    if (nargs > 1 && (start = PyLong_AsSsize_t(args[1])) == -1 && PyErr_Occurred())
        goto fail;
    if (nargs > 2 && (end = PyLong_AsSsize_t(args[2])) == -1 && PyErr_Occurred())
        goto fail;
    if (start < 0 || end < 0) {
        PyErr_Format(PyExc_ValueError, "%s: negative position", name);
        goto fail;
    }
    if (end > view.len)
        end = view.len;
    if (start > end)
        start = end;
    Py_BEGIN_ALLOW_THREADS
    crc = fn(0, (const unsigned char *)view.buf + start, (size_t)(end - start));
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
fail:
    PyBuffer_Release(&view);
    return NULL;
}

PyObject *
sp_crc32c(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return crc_entry("crc32c", crc32c_impl, args, nargs);
}

PyObject *
sp_crc32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return crc_entry("crc32", crc32_from_zero, args, nargs);
}
