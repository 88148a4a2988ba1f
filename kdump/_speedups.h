/*
 * kdump._speedups' internal header: what the extension's C files share.
 *
 * The extension is one module built from several files, one per family of entry
 * points (setup.py lists them all; _speedups.c holds the module, its method table and the
 * helpers every family uses):
 *
 *   _speedups.c          the module: method table, init, slot layouts, int arguments
 *   _speedups_walk.c     the v2 record walker; scan, decode, events, offsets, number keys
 *   _speedups_crc.c      CRC-32C and CRC-32 (one slicing-by-8 routine for both)
 *   _speedups_writers.c  dump's text and JSON Lines writers (records and batch lines)
 *   _speedups_runs.c     runs of whole batches: verify-crc's and size-report's walks
 *   _speedups_reads.c    a log file's reads for them: pread stretches, the read-ahead
 *                        thread, verify-crc's walk of a file (over two threads)
 *   _speedups_packed.c   kdump export's packed columns
 *   _speedups_timeline.c kdump timeline: a partition change's event, the replay's callback,
 *                        an event's JSON line
 *
 * Byte layouts and fault codes come from _layouts.h, generated from kdump/layouts.py
 * and kdump/records/faults.py.  Functions shared between files are named here; every
 * other function stays static in its file.
 */
#ifndef KDUMP_SPEEDUPS_H
#define KDUMP_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#include "_layouts.h"

#ifdef Py_T_OBJECT_EX
#define KD_T_OBJECT_EX Py_T_OBJECT_EX
#define KD_READONLY Py_READONLY
#else
#define KD_T_OBJECT_EX T_OBJECT_EX
#define KD_READONLY READONLY
#endif

/* ---------------------------------------------------------------------------------
 * Slot layouts of Python classes with __slots__ (_speedups.c)
 * --------------------------------------------------------------------------------- */
#define MAX_SLOTS 32

typedef struct {
    PyTypeObject *type; /* strong reference, or NULL */
    int n;
    Py_ssize_t off[MAX_SLOTS];
} Layout;

int layout_get(Layout *l, PyObject *cls, const char *const *names, int n);

/* A new instance with every slot NULL; the caller fills them all. */
static inline PyObject *
layout_alloc(Layout *l)
{
    return l->type->tp_alloc(l->type, 0);
}

/* Store ``v`` (a new reference, stolen) in slot ``i``. */
#define SLOT_SET(obj, l, i, v) (*(PyObject **)((char *)(obj) + (l)->off[(i)]) = (v))
#define SLOT_GET(obj, l, i) (*(PyObject **)((char *)(obj) + (l)->off[(i)]))

/* RecordEvent's and Decoded's slots (kdump.ops.dump, kdump.decoders) */
extern const char *const EVENT_FIELDS[3];
extern const char *const DECODED_FIELDS[6];

/* A Python int argument as int64; 0 on success, 1 when it does not fit (or is not
 * an int), -1 on another error. */
int arg_i64(PyObject *o, int64_t *out);

/* ---------------------------------------------------------------------------------
 * Varints (kdump.records.walk._uvarint: ByteUtils.readUnsignedVarint/Varlong) and
 * big-endian fields
 * --------------------------------------------------------------------------------- */
#define VARINT_OK 0
#define VARINT_PAST_END 1
#define VARINT_TOO_LONG 2

/* On error ``*pos`` is left unchanged, as the Python assignment never happens. */
static inline int
rd_uvarint(const unsigned char *b, int64_t *pos, int64_t end, int max, uint64_t *out)
{
    uint64_t r = 0;
    int shift = 0, i;
    int64_t p = *pos;
    for (i = 0; i < max; i++) {
        unsigned c;
        if (p >= end)
            return VARINT_PAST_END;
        c = b[p++];
        r |= (uint64_t)(c & 0x7F) << shift;
        if (c < 0x80) {
            if (max == 5)
                r &= 0xFFFFFFFFu;
            *out = r;
            *pos = p;
            return VARINT_OK;
        }
        shift += 7;
    }
    return VARINT_TOO_LONG;
}

/* ZigZag */
static inline int64_t
zz(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static inline int64_t
be64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return (int64_t)v;
}

static inline int32_t
be32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return (int32_t)v;
}

static inline int16_t
be16(const unsigned char *p)
{
    return (int16_t)(((unsigned)p[0] << 8) | p[1]);
}

/* ---------------------------------------------------------------------------------
 * The v2 record walker (_speedups_walk.c)
 * --------------------------------------------------------------------------------- */
typedef struct {
    int64_t start, limit, ts_delta, offset_delta, klen, key_at, vlen, value_at;
    int64_t nh, headers_at, header_bytes;
    int attributes;
} RawRecord;

typedef struct {
    int code;
    int64_t record, at, a, b;
} Fault;

/* Called for each record walked: 0 to go on, -1 on a Python error. */
typedef int (*record_cb)(void *ctx, const unsigned char *buf, const RawRecord *r);

/* Records ``rec ..`` of ``count`` (at most ``want``) from buf[pos:end]: 0 when walked
 * (*pos_out: where reading stopped), 1 at a fault (*f; *pos_out = f->at), -1 when the
 * callback failed. */
int walk_v2(const unsigned char *buf, int64_t pos, int64_t end, int64_t rec, int64_t count,
            int64_t want, int64_t headers_left, int64_t headers_max, record_cb cb, void *ctx,
            Fault *f, int64_t *pos_out);

/* A fault as the tuple kdump.records.faults reads: (code, record, at, a, b). */
PyObject *fault_tuple(const Fault *f);

/* What the records walked add up to (scan_v2_records, size_run): stats_init, then
 * stats_cb as walk_v2's callback. */
typedef struct {
    int64_t n, key_bytes, value_bytes, header_bytes, headers, null_keys, null_values;
    int64_t first_delta, prev_delta, min_ts, max_ts;
    int ascending;
} Stats;

void stats_init(Stats *s);
int stats_cb(void *ctx, const unsigned char *buf, const RawRecord *r);

/* A record's producer sequence: DefaultRecordBatch.incrementSequence (wrapping from
 * 2^31 - 1 to 0), or -1 when the batch has none. */
static inline int64_t
record_sequence(int64_t base_seq, int64_t offset_delta)
{
    if (base_seq < 0)
        return KL_NO_SEQUENCE;
    if (base_seq > KL_INT32_MAX - offset_delta)
        return offset_delta - (KL_INT32_MAX - base_seq) - 1;
    return base_seq + offset_delta;
}

/* ---------------------------------------------------------------------------------
 * A growing byte buffer (_speedups_writers.c): helpers return 0 on success, -1 with
 * a Python exception, 1 for "not handled here" (the caller then returns NotImplemented
 * and Python does the work).
 * --------------------------------------------------------------------------------- */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
} Buf;

int buf_reserve(Buf *b, Py_ssize_t extra);

static inline int
buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    if (b->len + n > b->cap && buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

/* bytes that may not be UTF-8, as bytes.decode("utf-8", "replace") reads them */
int buf_utf8_replace(Buf *b, const char *s, Py_ssize_t n);
/* An exact int as json.dumps writes it; 1 for anything else. */
int buf_int(Buf *b, PyObject *o);
/* A JSON string of valid UTF-8 text, escaped as kdump.render.jsonl.json_text does. */
int buf_json_utf8(Buf *b, const unsigned char *s, Py_ssize_t n);

#define PUTS(b, s) buf_put((b), (s), (Py_ssize_t)(sizeof(s) - 1))

/* ---------------------------------------------------------------------------------
 * CRCs (_speedups_crc.c)
 * --------------------------------------------------------------------------------- */
void crc_init(void);
/* CRC-32C continuing ``crc`` (0 to start), with SSE 4.2 where the CPU has it */
extern uint32_t (*crc32c_impl)(uint32_t crc, const unsigned char *p, size_t n);
/* zlib.crc32 of p[0:n] */
uint32_t crc32_ieee(const unsigned char *p, size_t n);

/* ---------------------------------------------------------------------------------
 * verify-crc's walk (_speedups_runs.c) and its reads of a file (_speedups_reads.c)
 * --------------------------------------------------------------------------------- */
/* What a walk has consumed so far. */
typedef struct {
    int64_t pos, batches, records, last;
} VProgress;
/* The walk over d (the bytes from position ``origin``) from p->pos while a whole batch
 * lies before ``stop`` and starts before ``soft``; ``checked``: the CRCs were checked
 * already (verify_split).  -1 on a Python error (the GIL released: *ts), 0 otherwise. */
int verify_walk(const unsigned char *d, int64_t origin, int64_t stop, int64_t soft,
                int have_prev, int64_t prev_last, int have_base, int64_t segment_base, int deep,
                int checked, int gaps, int64_t headers_max, int64_t max_batch_bytes,
                PyObject *decompress, PyThreadState **ts, VProgress *p);
/* The same walk over the file ``fd``, which it reads itself (verify_run's file mode). */
int verify_file(int fd, int64_t stop, int64_t soft, int have_prev, int64_t prev_last,
                int have_base, int64_t segment_base, int deep, int gaps, int64_t headers_max,
                int64_t max_batch_bytes, PyObject *decompress, int64_t chunk, int read_ahead,
                PyThreadState **ts, VProgress *p);
/* ``n`` bytes at ``pos`` of ``fd`` into ``to``, EINTR retried: fewer at the file's end
 * (it shrank) or on an error, a short read. */
int64_t pread_full(int fd, unsigned char *to, int64_t n, int64_t pos);

/* ---------------------------------------------------------------------------------
 * The entry points, one per name in the method table (_speedups.c)
 * --------------------------------------------------------------------------------- */
#define KD_ENTRY(name) PyObject *sp_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
KD_ENTRY(scan_v2_records);
KD_ENTRY(decode_v2_records);
KD_ENTRY(record_events);
KD_ENTRY(record_offsets);
KD_ENTRY(number_key_indices);
KD_ENTRY(crc32c);
KD_ENTRY(crc32);
KD_ENTRY(text_record_lines);
KD_ENTRY(json_record_lines);
KD_ENTRY(batch_json);
KD_ENTRY(text_batch_line);
KD_ENTRY(verify_run);
KD_ENTRY(size_run);
KD_ENTRY(header_run);
KD_ENTRY(record_columns);
KD_ENTRY(packed_v2_records);
KD_ENTRY(lengths_offsets);
KD_ENTRY(partition_event);
KD_ENTRY(event_json);
KD_ENTRY(metadata_changes);

#endif
