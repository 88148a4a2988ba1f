/*
 * kdump._speedups: native versions of kdump's hottest loops.
 *
 * Every function here has a pure-Python twin that is the reference (the twin's
 * module names it); tests/test_speedups.py proves both give identical results on
 * every fixture, damaged ones included.  A function returns NotImplemented for input
 * outside the domain it handles (a buffer that is not ``bytes``, a number that does
 * not fit 64 bits ...), and the Python caller then runs the twin.
 *
 *  scan_v2_records     kdump.records.scan.scan_v2_records_py
 *  decode_v2_records   kdump.records.v2.decode_records_py
 *  record_events       kdump.ops.dump (RecordEvent + the string/string decoder)
 *  text_record_lines   kdump.render.text.record_lines
 *  json_record_lines   kdump.render.jsonl.record_object + JsonRenderer
 *  crc32c              the crc32c package's crc32c
 *  crc32               zlib.crc32
 *  verify_run          kdump.ops.verify.verify_log, for batches it reports nothing about
 *  record_offsets      kdump.ops.dump.record_offsets_py
 *  number_key_indices  kdump.decoders.simple.number_key_indices_py
 *  size_run            kdump.ops.size_run.size_run_py
 *  batch_json          kdump.render.jsonl.batch_object + record_prefix
 *  text_batch_line     kdump.render.text.batch_line
 *  record_columns      kdump.ops.export.rows.record_columns_py
 *  packed_v2_records   kdump.records.v2.packed_v2_records_py
 *  lengths_offsets     kdump.records.packed.lengths_offsets_py
 *
 * Objects of kdump's own __slots__ classes (Record, RecordScan, RecordEvent, Decoded)
 * are made here without running their __init__: the class is passed in, its slot
 * offsets are read from its member descriptors once, and the slots are filled
 * directly.  Every slot is filled, exactly as the Python constructor would.
 */
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
 * Slot layouts of Python classes with __slots__
 * --------------------------------------------------------------------------------- */
#define MAX_SLOTS 24

typedef struct {
    PyTypeObject *type; /* strong reference, or NULL */
    int n;
    Py_ssize_t off[MAX_SLOTS];
} Layout;

static int
layout_get(Layout *l, PyObject *cls, const char *const *names, int n)
{
    Py_ssize_t off[MAX_SLOTS];
    PyTypeObject *t;
    int i;

    if (l->type != NULL && (PyObject *)l->type == cls)
        return 0;
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "a class with __slots__ is required");
        return -1;
    }
    t = (PyTypeObject *)cls;
    if (n > MAX_SLOTS || t->tp_itemsize != 0) {
        PyErr_SetString(PyExc_TypeError, "unsupported class layout");
        return -1;
    }
    for (i = 0; i < n; i++) {
        PyObject *d = PyObject_GetAttrString(cls, names[i]);
        PyMemberDef *m;
        if (d == NULL)
            return -1;
        if (Py_TYPE(d) != &PyMemberDescr_Type) {
            Py_DECREF(d);
            PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", t->tp_name, names[i]);
            return -1;
        }
        m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != KD_T_OBJECT_EX || (m->flags & KD_READONLY) || m->offset <= 0 ||
            m->offset + (Py_ssize_t)sizeof(PyObject *) > t->tp_basicsize) {
            Py_DECREF(d);
            PyErr_Format(PyExc_TypeError, "%s.%s is not a plain object slot", t->tp_name,
                         names[i]);
            return -1;
        }
        off[i] = m->offset;
        Py_DECREF(d);
    }
    Py_INCREF(t);
    Py_XSETREF(l->type, t);
    l->n = n;
    memcpy(l->off, off, sizeof(Py_ssize_t) * (size_t)n);
    return 0;
}

/* A new instance with every slot NULL; the caller fills them all. */
static inline PyObject *
layout_alloc(Layout *l)
{
    return l->type->tp_alloc(l->type, 0);
}

/* Store ``v`` (a new reference, stolen) in slot ``i``. */
#define SLOT_SET(obj, l, i, v) (*(PyObject **)((char *)(obj) + (l)->off[(i)]) = (v))

/* ---------------------------------------------------------------------------------
 * Varints (kdump.records.varint.read_uvarint)
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

static inline int64_t
zz(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* A Python int argument as int64; 0 on success, 1 when it does not fit (or is not
 * an int), -1 on another error. */
static int
arg_i64(PyObject *o, int64_t *out)
{
    int overflow = 0;
    long long v;
    if (!PyLong_Check(o))
        return 1;
    v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
        return 1;
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The C v2 record walker: the one place C reads DefaultRecord bytes.
 *
 * walk_record checks one record exactly as kdump.records.walk.walk_v2 does (its Python
 * twin), walk_v2 walks the records of a batch and checks the records count; a fault
 * is (code, record, at, a, b) with the codes of kdump/records/faults.py, which holds
 * the one message table.  Decoding (decode_v2_records), scanning (scan_v2_records)
 * and verification (verify_v2_run) all run on walk_v2, with a callback per record.
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

#define FAULT(c, at_, a_, b_)                                                                 \
    do {                                                                                      \
        f->code = (c);                                                                        \
        f->record = rec;                                                                      \
        f->at = (at_);                                                                        \
        f->a = (a_);                                                                          \
        f->b = (b_);                                                                          \
        return 1;                                                                             \
    } while (0)

#define READ_VARINT(max_, lim_, out)                                                          \
    do {                                                                                      \
        uint64_t u_;                                                                          \
        int rc_ = rd_uvarint(buf, &pos, (lim_), (max_), &u_);                                 \
        if (rc_)                                                                              \
            FAULT(rc_ == VARINT_PAST_END ? KF_VARINT_PAST_END : KF_VARINT_TOO_LONG, start,     \
                  rc_ == VARINT_PAST_END ? 0 : (max_), 0);                                    \
        (out) = zz(u_);                                                                       \
    } while (0)

/* Record ``rec`` at buf[pos] (pos < end): 0 with *r filled, or 1 with *f filled. */
static inline int
walk_record(const unsigned char *buf, int64_t pos, int64_t end, int64_t rec,
            int64_t *headers_left, int64_t headers_max, RawRecord *r, Fault *f)
{
    int64_t start = pos, length, body, limit, h;
    if (buf[pos] < 0x80) {
        length = zz(buf[pos]);
        pos += 1;
    }
    else
        READ_VARINT(5, end, length);
    body = pos;
    limit = pos + length;
    if (length < 6)
        FAULT(KF_LENGTH_INVALID, start, length, 0);
    if (limit > end)
        FAULT(KF_LENGTH_PAST_END, start, length, end - pos);
    r->start = start;
    r->limit = limit;
    r->attributes = buf[pos];
    pos += 1;
    READ_VARINT(10, limit, r->ts_delta);
    READ_VARINT(5, limit, r->offset_delta);
    READ_VARINT(5, limit, r->klen);
    r->key_at = pos;
    if (r->klen >= 0) {
        if (pos + r->klen > limit)
            FAULT(KF_KEY_PAST_END, start, r->klen, 0);
        pos += r->klen;
    }
    READ_VARINT(5, limit, r->vlen);
    r->value_at = pos;
    if (r->vlen >= 0) {
        if (pos + r->vlen > limit)
            FAULT(KF_VALUE_PAST_END, start, r->vlen, 0);
        pos += r->vlen;
    }
    READ_VARINT(5, limit, r->nh);
    if (r->nh < 0)
        FAULT(KF_HEADER_COUNT_NEGATIVE, start, r->nh, 0);
    if (r->nh > *headers_left)
        FAULT(KF_TOO_MANY_HEADERS, start, r->nh, headers_max);
    *headers_left -= r->nh;
    r->headers_at = pos;
    r->header_bytes = 0;
    for (h = 0; h < r->nh; h++) {
        int64_t hk, hv;
        READ_VARINT(5, limit, hk);
        if (hk < 0)
            FAULT(KF_HEADER_KEY_NEGATIVE, start, hk, 0);
        if (pos + hk > limit)
            FAULT(KF_HEADER_KEY_PAST_END, start, hk, 0);
        pos += hk;
        READ_VARINT(5, limit, hv);
        if (hv >= 0) {
            if (pos + hv > limit)
                FAULT(KF_HEADER_VALUE_PAST_END, start, hv, 0);
            pos += hv;
            r->header_bytes += hk + hv;
        }
        else
            r->header_bytes += hk;
    }
    if (pos != limit)
        FAULT(KF_BODY_SIZE, start, length, pos - body);
    return 0;
}

/* Called for each record walked: 0 to go on, -1 on a Python error. */
typedef int (*record_cb)(void *ctx, const unsigned char *buf, const RawRecord *r);

/* Records ``rec ..`` of ``count`` (at most ``want``) from buf[pos:end]: 0 when walked
 * (*pos_out: where reading stopped), 1 at a fault (*f; *pos_out = f->at), -1 when the
 * callback failed. */
static int
walk_v2(const unsigned char *buf, int64_t pos, int64_t end, int64_t rec, int64_t count,
        int64_t want, int64_t headers_left, int64_t headers_max, record_cb cb, void *ctx,
        Fault *f, int64_t *pos_out)
{
    int64_t stop;
    RawRecord r;
    *pos_out = pos;
    if (count < 0) {
        f->code = KF_COUNT_NEGATIVE, f->record = rec, f->at = pos, f->a = f->b = 0;
        return 1;
    }
    stop = want < count - rec ? rec + want : count;
    while (rec < stop) {
        if (pos >= end) {
            f->code = KF_COUNT_SHORT, f->record = rec, f->at = pos, f->a = f->b = 0;
            *pos_out = pos;
            return 1;
        }
        if (walk_record(buf, pos, end, rec, &headers_left, headers_max, &r, f)) {
            *pos_out = f->at;
            return 1;
        }
        if (cb(ctx, buf, &r) < 0)
            return -1;
        pos = r.limit;
        rec += 1;
    }
    *pos_out = pos;
    if (rec >= count && pos != end) {
        f->code = KF_BYTES_REMAIN, f->record = rec, f->at = pos, f->a = end - pos, f->b = 0;
        return 1;
    }
    return 0;
}

static PyObject *
fault_tuple(const Fault *f)
{
    return Py_BuildValue("(iLLLL)", f->code, (long long)f->record, (long long)f->at,
                         (long long)f->a, (long long)f->b);
}

/* ---------------------------------------------------------------------------------
 * Statistics of the records walked (scan_v2_records and verify_v2_run)
 * --------------------------------------------------------------------------------- */
typedef struct {
    int64_t n, key_bytes, value_bytes, header_bytes, headers, null_keys, null_values;
    int64_t first_delta, prev_delta, min_ts, max_ts;
    int ascending;
} Stats;

static int
stats_cb(void *ctx, const unsigned char *buf, const RawRecord *r)
{
    Stats *s = (Stats *)ctx;
    (void)buf;
    if (r->klen >= 0)
        s->key_bytes += r->klen;
    else
        s->null_keys += 1;
    if (r->vlen >= 0)
        s->value_bytes += r->vlen;
    else
        s->null_values += 1;
    s->headers += r->nh;
    s->header_bytes += r->header_bytes;
    if (s->n == 0) {
        s->first_delta = r->offset_delta;
        s->min_ts = s->max_ts = r->ts_delta;
    }
    else {
        if (r->offset_delta <= s->prev_delta)
            s->ascending = 0;
        if (r->ts_delta < s->min_ts)
            s->min_ts = r->ts_delta;
        else if (r->ts_delta > s->max_ts)
            s->max_ts = r->ts_delta;
    }
    s->prev_delta = r->offset_delta;
    s->n += 1;
    return 0;
}

static void
stats_init(Stats *s)
{
    memset(s, 0, sizeof(*s));
    s->first_delta = s->prev_delta = -1;
    s->ascending = 1;
}

/* ---------------------------------------------------------------------------------
 * scan_v2_records(buf, start, end, count, max_headers, RecordScan)
 *   -> RecordScan | NotImplemented
 * --------------------------------------------------------------------------------- */
static const char *const SCAN_FIELDS[] = {
    "records",   "record_bytes", "key_bytes",   "value_bytes",  "header_bytes",
    "headers",   "null_keys",    "null_values", "first_delta",  "last_delta",
    "ascending", "min_ts_delta", "max_ts_delta", "fault",
};
#define N_SCAN_FIELDS 14
static Layout scan_layout;

static PyObject *
sp_scan_v2_records(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    int64_t start, end, count, headers_max, pos;
    int64_t vals[N_SCAN_FIELDS];
    int rc, i;
    Stats s;
    Fault f;
    PyObject *fault = NULL, *res;

    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "scan_v2_records takes 6 arguments");
        return NULL;
    }
    if ((rc = arg_i64(args[1], &start)) || (rc = arg_i64(args[2], &end)) ||
        (rc = arg_i64(args[3], &count)) || (rc = arg_i64(args[4], &headers_max))) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (layout_get(&scan_layout, args[5], SCAN_FIELDS, N_SCAN_FIELDS) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (start < 0 || end > (int64_t)view.len || start > end) {
        PyBuffer_Release(&view);
        Py_RETURN_NOTIMPLEMENTED;
    }
    stats_init(&s);
    rc = walk_v2((const unsigned char *)view.buf, start, end, 0, count, count, headers_max,
                 headers_max, stats_cb, &s, &f, &pos);
    PyBuffer_Release(&view);
    if (rc == 1 && (fault = fault_tuple(&f)) == NULL)
        return NULL;
    vals[0] = s.n;
    vals[1] = pos - start;
    vals[2] = s.key_bytes;
    vals[3] = s.value_bytes;
    vals[4] = s.header_bytes;
    vals[5] = s.headers;
    vals[6] = s.null_keys;
    vals[7] = s.null_values;
    vals[8] = s.first_delta;
    vals[9] = s.prev_delta;
    vals[11] = s.min_ts;
    vals[12] = s.max_ts;
    res = layout_alloc(&scan_layout);
    if (res == NULL) {
        Py_XDECREF(fault);
        return NULL;
    }
    for (i = 0; i < N_SCAN_FIELDS; i++) {
        PyObject *v;
        if (i == 10) {
            v = s.ascending ? Py_True : Py_False;
            Py_INCREF(v);
        }
        else if (i == 13) {
            v = fault ? fault : Py_None;
            if (!fault)
                Py_INCREF(v);
        }
        else {
            v = PyLong_FromLongLong(vals[i]);
            if (v == NULL) {
                /* remaining slots stay NULL: the object is still valid to free */
                Py_XDECREF(fault);
                Py_DECREF(res);
                return NULL;
            }
        }
        SLOT_SET(res, &scan_layout, i, v);
    }
    return res;
}

/* ---------------------------------------------------------------------------------
 * decode_v2_records(buf, pos, end, record, count, want, headers_left, headers_max,
 *                   base_offset, base_timestamp, append_time, base_sequence, shift,
 *                   compressed, Record)
 *   -> (records, fault | None, position) | NotImplemented
 * --------------------------------------------------------------------------------- */
static const char *const RECORD_FIELDS[] = {
    "offset",   "timestamp", "key",        "value",     "headers",      "magic",
    "attributes", "sequence", "size",      "position",  "in_payload",   "offset_delta",
    "timestamp_delta", "crc", "crc_valid", "control",
};
#define N_RECORD_FIELDS 16
enum {
    R_OFFSET, R_TIMESTAMP, R_KEY, R_VALUE, R_HEADERS, R_MAGIC, R_ATTRIBUTES, R_SEQUENCE,
    R_SIZE, R_POSITION, R_IN_PAYLOAD, R_OFFSET_DELTA, R_TIMESTAMP_DELTA, R_CRC, R_CRC_VALID,
    R_CONTROL
};
static Layout record_layout;

static PyObject *
sum_i64(int64_t a, int64_t b)
{
    int64_t r;
    PyObject *pa, *pb, *res;
    if (!__builtin_add_overflow(a, b, &r))
        return PyLong_FromLongLong(r);
    pa = PyLong_FromLongLong(a);
    pb = PyLong_FromLongLong(b);
    res = (pa && pb) ? PyNumber_Add(pa, pb) : NULL;
    Py_XDECREF(pa);
    Py_XDECREF(pb);
    return res;
}

typedef struct {
    PyObject *list, *append_time, *in_payload;
    int64_t base_offset, base_ts, base_seq, shift;
} DecodeCtx;

/* The header pairs of a record walk_record has checked. */
static PyObject *
build_headers(const unsigned char *buf, const RawRecord *r)
{
    int64_t pos = r->headers_at, h;
    uint64_t u;
    PyObject *headers = PyList_New((Py_ssize_t)r->nh);
    if (headers == NULL)
        return NULL;
    for (h = 0; h < r->nh; h++) {
        int64_t hk, hv;
        PyObject *hkey, *hval, *pair;
        rd_uvarint(buf, &pos, r->limit, 5, &u);
        hk = zz(u);
        hkey = PyBytes_FromStringAndSize((const char *)buf + pos, (Py_ssize_t)hk);
        pos += hk;
        rd_uvarint(buf, &pos, r->limit, 5, &u);
        hv = zz(u);
        if (hv >= 0) {
            hval = PyBytes_FromStringAndSize((const char *)buf + pos, (Py_ssize_t)hv);
            pos += hv;
        }
        else {
            hval = Py_None;
            Py_INCREF(hval);
        }
        pair = (hkey && hval) ? PyTuple_Pack(2, hkey, hval) : NULL;
        Py_XDECREF(hkey);
        Py_XDECREF(hval);
        if (pair == NULL) {
            Py_DECREF(headers);
            return NULL;
        }
        PyList_SET_ITEM(headers, (Py_ssize_t)h, pair);
    }
    return headers;
}

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

static int
decode_cb(void *ctx, const unsigned char *buf, const RawRecord *r)
{
    DecodeCtx *c = (DecodeCtx *)ctx;
    PyObject *rec, *v, *key, *value, *headers;
    int64_t sequence;

    sequence = record_sequence(c->base_seq, r->offset_delta);
    if (r->klen >= 0)
        key = PyBytes_FromStringAndSize((const char *)buf + r->key_at, (Py_ssize_t)r->klen);
    else {
        key = Py_None;
        Py_INCREF(key);
    }
    if (r->vlen >= 0)
        value = PyBytes_FromStringAndSize((const char *)buf + r->value_at, (Py_ssize_t)r->vlen);
    else {
        value = Py_None;
        Py_INCREF(value);
    }
    headers = build_headers(buf, r);
    rec = (key && value && headers) ? layout_alloc(&record_layout) : NULL;
    if (rec == NULL) {
        Py_XDECREF(key);
        Py_XDECREF(value);
        Py_XDECREF(headers);
        return -1;
    }
    /* the references to key, value and headers move into the record */
    SLOT_SET(rec, &record_layout, R_KEY, key);
    SLOT_SET(rec, &record_layout, R_VALUE, value);
    SLOT_SET(rec, &record_layout, R_HEADERS, headers);
    Py_INCREF(Py_None);
    SLOT_SET(rec, &record_layout, R_CRC, Py_None);
    Py_INCREF(Py_None);
    SLOT_SET(rec, &record_layout, R_CRC_VALID, Py_None);
    Py_INCREF(Py_None);
    SLOT_SET(rec, &record_layout, R_CONTROL, Py_None);
    Py_INCREF(c->in_payload);
    SLOT_SET(rec, &record_layout, R_IN_PAYLOAD, c->in_payload);
#define SET(i, expr)                                                                          \
    do {                                                                                      \
        v = (expr);                                                                           \
        if (v == NULL) {                                                                      \
            Py_DECREF(rec);                                                                   \
            return -1;                                                                        \
        }                                                                                     \
        SLOT_SET(rec, &record_layout, (i), v);                                                \
    } while (0)
    SET(R_OFFSET, sum_i64(c->base_offset, r->offset_delta));
    if (c->append_time != Py_None) {
        Py_INCREF(c->append_time);
        SLOT_SET(rec, &record_layout, R_TIMESTAMP, c->append_time);
    }
    else
        SET(R_TIMESTAMP, sum_i64(c->base_ts, r->ts_delta));
    SET(R_MAGIC, PyLong_FromLong(2));
    SET(R_ATTRIBUTES, PyLong_FromLong(r->attributes));
    SET(R_SEQUENCE, PyLong_FromLongLong(sequence));
    SET(R_SIZE, PyLong_FromLongLong(r->limit - r->start));
    SET(R_POSITION, PyLong_FromLongLong(r->start + c->shift));
    SET(R_OFFSET_DELTA, PyLong_FromLongLong(r->offset_delta));
    SET(R_TIMESTAMP_DELTA, PyLong_FromLongLong(r->ts_delta));
#undef SET
    if (PyList_Append(c->list, rec) < 0) {
        Py_DECREF(rec);
        return -1;
    }
    Py_DECREF(rec);
    return 0;
}

static PyObject *
sp_decode_v2_records(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t pos, end, record, count, want, headers_left, headers_max, stop;
    DecodeCtx c;
    Fault f;
    PyObject *fault, *res;
    int rc;

    if (nargs != 15) {
        PyErr_SetString(PyExc_TypeError, "decode_v2_records takes 15 arguments");
        return NULL;
    }
    if (!PyBytes_CheckExact(args[0]))
        Py_RETURN_NOTIMPLEMENTED;
    if ((rc = arg_i64(args[1], &pos)) || (rc = arg_i64(args[2], &end)) ||
        (rc = arg_i64(args[3], &record)) || (rc = arg_i64(args[4], &count)) ||
        (rc = arg_i64(args[5], &want)) || (rc = arg_i64(args[6], &headers_left)) ||
        (rc = arg_i64(args[7], &headers_max)) || (rc = arg_i64(args[8], &c.base_offset)) ||
        (rc = arg_i64(args[9], &c.base_ts)) || (rc = arg_i64(args[11], &c.base_seq)) ||
        (rc = arg_i64(args[12], &c.shift))) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    c.append_time = args[10];
    c.in_payload = args[13];
    if (c.append_time != Py_None && !PyLong_Check(c.append_time))
        Py_RETURN_NOTIMPLEMENTED;
    /* position arithmetic stays far from int64 limits */
    if (c.base_seq > KL_INT32_MAX || c.base_seq < -KL_INT32_MAX - 1 || c.shift > (1LL << 62) ||
        c.shift < -(1LL << 62) || !PyBool_Check(c.in_payload) || record < 0 || want < -(1LL << 62) ||
        count > (1LL << 62))
        Py_RETURN_NOTIMPLEMENTED;
    if (pos < 0 || end > (int64_t)PyBytes_GET_SIZE(args[0]) || pos > end)
        Py_RETURN_NOTIMPLEMENTED;
    if (layout_get(&record_layout, args[14], RECORD_FIELDS, N_RECORD_FIELDS) < 0)
        return NULL;
    c.list = PyList_New(0);
    if (c.list == NULL)
        return NULL;
    rc = walk_v2((const unsigned char *)PyBytes_AS_STRING(args[0]), pos, end, record, count,
                 want, headers_left, headers_max, decode_cb, &c, &f, &stop);
    if (rc < 0) {
        Py_DECREF(c.list);
        return NULL;
    }
    if (rc == 0) {
        fault = Py_None;
        Py_INCREF(fault);
    }
    else if ((fault = fault_tuple(&f)) == NULL) {
        Py_DECREF(c.list);
        return NULL;
    }
    res = Py_BuildValue("(NNL)", c.list, fault, (long long)stop);
    return res;
}

/* ---------------------------------------------------------------------------------
 * record_events(records, RecordEvent, Decoded | None) -> list of RecordEvent
 *
 * RecordEvent(record) for each record; with Decoded, each event's ``decoded`` is what
 * kdump.decoders' string/string KeyValueDecoder gives: Decoded(key text, value text,
 * None, None, None, None), the texts decoded as UTF-8 with U+FFFD for malformed bytes.
 * --------------------------------------------------------------------------------- */
static const char *const EVENT_FIELDS[] = {"record", "decoded", "control"};
static const char *const DECODED_FIELDS[] = {"key_text", "value_text", "key_json",
                                             "value_json", "error", "note"};
static Layout event_layout, decoded_layout;
static Layout record_kv_layout; /* Record: key and value */
static const char *const RECORD_KV_FIELDS[] = {"key", "value"};

static PyObject *
utf8_text(PyObject *b)
{
    if (b == Py_None) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    if (!PyBytes_CheckExact(b))
        return PyObject_CallMethod(b, "decode", "ss", "utf-8", "replace");
    return PyUnicode_DecodeUTF8(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), "replace");
}

static PyObject *
sp_record_events(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *records, *out, *decoded_cls;
    Py_ssize_t i, n;
    int decode;

    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "record_events takes 3 arguments");
        return NULL;
    }
    records = args[0];
    decoded_cls = args[2];
    if (!PyList_CheckExact(records)) {
        PyErr_SetString(PyExc_TypeError, "records must be a list");
        return NULL;
    }
    if (layout_get(&event_layout, args[1], EVENT_FIELDS, 3) < 0)
        return NULL;
    decode = decoded_cls != Py_None;
    if (decode && layout_get(&decoded_layout, decoded_cls, DECODED_FIELDS, 6) < 0)
        return NULL;
    n = PyList_GET_SIZE(records);
    out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i), *ev, *dec;
        if (decode) {
            PyObject *key, *value, *kt, *vt;
            if (layout_get(&record_kv_layout, (PyObject *)Py_TYPE(rec), RECORD_KV_FIELDS, 2) < 0)
                goto fail;
            key = *(PyObject **)((char *)rec + record_kv_layout.off[0]);
            value = *(PyObject **)((char *)rec + record_kv_layout.off[1]);
            if (key == NULL || value == NULL) {
                PyErr_SetString(PyExc_AttributeError, "record without key or value");
                goto fail;
            }
            kt = utf8_text(key);
            if (kt == NULL)
                goto fail;
            vt = utf8_text(value);
            if (vt == NULL) {
                Py_DECREF(kt);
                goto fail;
            }
            dec = layout_alloc(&decoded_layout);
            if (dec == NULL) {
                Py_DECREF(kt);
                Py_DECREF(vt);
                goto fail;
            }
            SLOT_SET(dec, &decoded_layout, 0, kt);
            SLOT_SET(dec, &decoded_layout, 1, vt);
            Py_INCREF(Py_None);
            SLOT_SET(dec, &decoded_layout, 2, Py_None);
            Py_INCREF(Py_None);
            SLOT_SET(dec, &decoded_layout, 3, Py_None);
            Py_INCREF(Py_None);
            SLOT_SET(dec, &decoded_layout, 4, Py_None);
            Py_INCREF(Py_None);
            SLOT_SET(dec, &decoded_layout, 5, Py_None);
        }
        else {
            dec = Py_None;
            Py_INCREF(dec);
        }
        ev = layout_alloc(&event_layout);
        if (ev == NULL) {
            Py_DECREF(dec);
            goto fail;
        }
        Py_INCREF(rec);
        SLOT_SET(ev, &event_layout, 0, rec);
        SLOT_SET(ev, &event_layout, 1, dec);
        Py_INCREF(Py_None);
        SLOT_SET(ev, &event_layout, 2, Py_None);
        PyList_SET_ITEM(out, i, ev);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* ---------------------------------------------------------------------------------
 * Rendering record lines: text (DumpLogSegments) and JSON Lines
 *
 * Helpers return 0 on success, -1 with a Python exception, 1 for "not handled here"
 * (the caller then returns NotImplemented and Python renders the batch).
 * --------------------------------------------------------------------------------- */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
} Buf;

static int
buf_reserve(Buf *b, Py_ssize_t extra)
{
    Py_ssize_t need = b->len + extra, cap;
    char *np;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap *= 2;
    np = PyMem_Realloc(b->p, (size_t)cap);
    if (np == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = np;
    b->cap = cap;
    return 0;
}

static inline int
buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    if (b->len + n > b->cap && buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

#define PUTS(b, lit) buf_put((b), (lit), (Py_ssize_t)(sizeof(lit) - 1))

/* A str as UTF-8; 1 when it cannot be encoded (lone surrogates). */
static int
buf_str(Buf *b, PyObject *s)
{
    Py_ssize_t n;
    const char *u;
    if (!PyUnicode_Check(s))
        return 1;
    u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear();
            return 1;
        }
        return -1;
    }
    return buf_put(b, u, n);
}

static int
buf_i64(Buf *b, long long v)
{
    char tmp[24], *e = tmp + sizeof tmp, *p = e;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + (u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return buf_put(b, p, e - p);
}

/* An exact int as json.dumps writes it (its repr, which is also what an f-string
 * writes); 1 for anything else. */
static int
buf_int(Buf *b, PyObject *o)
{
    int overflow = 0;
    long long v;
    PyObject *r;
    int rc;
    if (!PyLong_CheckExact(o))
        return 1;
    v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
        if (v == -1 && PyErr_Occurred())
            return -1;
        return buf_i64(b, v);
    }
    r = PyObject_Repr(o);
    if (r == NULL)
        return -1;
    rc = buf_str(b, r);
    Py_DECREF(r);
    return rc;
}

/* Is this strict UTF-8 (what bytes.decode("utf-8") accepts)?  1 yes, 0 no, -1 error. */
static int
is_utf8(const char *s, Py_ssize_t n)
{
    Py_ssize_t i;
    PyObject *u;
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            break;
    if (i == n)
        return 1;
    u = PyUnicode_DecodeUTF8(s, n, NULL);
    if (u == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    Py_DECREF(u);
    return 1;
}

/* bytes.decode("utf-8", errors="replace"), appended as UTF-8. */
static int
buf_utf8_replace(Buf *b, const char *s, Py_ssize_t n)
{
    Py_ssize_t i;
    PyObject *u;
    int rc;
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            break;
    if (i == n)
        return buf_put(b, s, n);
    u = PyUnicode_DecodeUTF8(s, n, "replace");
    if (u == NULL)
        return -1;
    rc = buf_str(b, u);
    Py_DECREF(u);
    return rc;
}

/* The code point of the character at s[i] of valid UTF-8 text when it is one that
 * kdump.render.jsonl._ESCAPED writes as a \\uXXXX escape (C1 controls, bidirectional-text
 * controls), with its length in *len; else 0. */
static unsigned
escaped_char(const unsigned char *s, Py_ssize_t i, Py_ssize_t n, int *len)
{
    unsigned c = s[i];
    if (c == 0xC2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F) {
        *len = 2;
        return s[i + 1];
    }
    if (c == 0xD8 && i + 1 < n && s[i + 1] == 0x9C) {
        *len = 2;
        return 0x061C;
    }
    if (c == 0xE2 && i + 2 < n) {
        unsigned c1 = s[i + 1], c2 = s[i + 2];
        if (c1 == 0x80 && (c2 == 0x8E || c2 == 0x8F || (c2 >= 0xAA && c2 <= 0xAE))) {
            *len = 3;
            return 0x2000 | (c2 & 0x3F);
        }
        if (c1 == 0x81 && c2 >= 0xA6 && c2 <= 0xA9) {
            *len = 3;
            return 0x2040 | (c2 & 0x3F);
        }
    }
    return 0;
}

/* A JSON string of valid UTF-8 text, escaped as kdump.render.jsonl._dumps does:
 * json's encode_basestring with ensure_ascii=False (backslash, quote and control
 * characters), then the C1 and bidirectional-text controls as \\uXXXX. */
static int
buf_json_utf8(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    static const char hex[] = "0123456789abcdef";
    Py_ssize_t i, run = 0;
    if (buf_reserve(b, n + 2) < 0)
        return -1;
    b->p[b->len++] = '"';
    for (i = 0; i < n; i++) {
        unsigned char c = s[i];
        char esc[6];
        int k;
        if (c >= 0x80) {
            int len = 0;
            unsigned u = escaped_char(s, i, n, &len);
            if (u == 0)
                continue;
            if (buf_put(b, (const char *)s + run, i - run) < 0)
                return -1;
            esc[0] = '\\'; esc[1] = 'u';
            esc[2] = hex[(u >> 12) & 0xF]; esc[3] = hex[(u >> 8) & 0xF];
            esc[4] = hex[(u >> 4) & 0xF]; esc[5] = hex[u & 0xF];
            if (buf_put(b, esc, 6) < 0)
                return -1;
            i += len - 1;
            run = i + 1;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (buf_put(b, (const char *)s + run, i - run) < 0)
            return -1;
        run = i + 1;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; k = 2; break;
        case '\\': esc[1] = '\\'; k = 2; break;
        case '\b': esc[1] = 'b'; k = 2; break;
        case '\f': esc[1] = 'f'; k = 2; break;
        case '\n': esc[1] = 'n'; k = 2; break;
        case '\r': esc[1] = 'r'; k = 2; break;
        case '\t': esc[1] = 't'; k = 2; break;
        default:
            esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
            esc[4] = hex[(c >> 4) & 0xF]; esc[5] = hex[c & 0xF];
            k = 6;
        }
        if (buf_put(b, esc, k) < 0)
            return -1;
    }
    if (buf_put(b, (const char *)s + run, n - run) < 0)
        return -1;
    return PUTS(b, "\"");
}

static int
buf_base64(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    static const char tbl[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Py_ssize_t i;
    char *o;
    if (buf_reserve(b, (n + 2) / 3 * 4 + 2) < 0)
        return -1;
    o = b->p + b->len;
    *o++ = '"';
    for (i = 0; i + 2 < n; i += 3) {
        unsigned v = ((unsigned)s[i] << 16) | ((unsigned)s[i + 1] << 8) | s[i + 2];
        *o++ = tbl[(v >> 18) & 63];
        *o++ = tbl[(v >> 12) & 63];
        *o++ = tbl[(v >> 6) & 63];
        *o++ = tbl[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)s[i] << 16;
        *o++ = tbl[(v >> 18) & 63];
        *o++ = tbl[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    }
    else if (n - i == 2) {
        unsigned v = ((unsigned)s[i] << 16) | ((unsigned)s[i + 1] << 8);
        *o++ = tbl[(v >> 18) & 63];
        *o++ = tbl[(v >> 12) & 63];
        *o++ = tbl[(v >> 6) & 63];
        *o++ = '=';
    }
    *o++ = '"';
    b->len = o - b->p;
    return 0;
}

static int
buf_hex(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    static const char hex[] = "0123456789abcdef";
    Py_ssize_t i;
    char *o;
    if (buf_reserve(b, 2 * n + 2) < 0)
        return -1;
    o = b->p + b->len;
    *o++ = '"';
    for (i = 0; i < n; i++) {
        *o++ = hex[s[i] >> 4];
        *o++ = hex[s[i] & 15];
    }
    *o++ = '"';
    b->len = o - b->p;
    return 0;
}

#define ENC_UTF8 0
#define ENC_BASE64 1
#define ENC_HEX 2

/* kdump.render.common.encode_payload, as JSON: `<value>,"<name>_encoding":<label>`. */
static int
buf_payload(Buf *b, PyObject *data, int enc, const char *enc_key, Py_ssize_t enc_key_len)
{
    const unsigned char *s;
    Py_ssize_t n;
    int rc, used = enc;
    if (data == Py_None) {
        if (PUTS(b, "null") < 0 || buf_put(b, enc_key, enc_key_len) < 0)
            return -1;
        return PUTS(b, "null");
    }
    if (!PyBytes_CheckExact(data))
        return 1;
    s = (const unsigned char *)PyBytes_AS_STRING(data);
    n = PyBytes_GET_SIZE(data);
    if (enc == ENC_UTF8) {
        rc = is_utf8((const char *)s, n);
        if (rc < 0)
            return -1;
        if (rc)
            rc = buf_json_utf8(b, s, n);
        else {
            used = ENC_BASE64;
            rc = buf_base64(b, s, n);
        }
    }
    else if (enc == ENC_HEX)
        rc = buf_hex(b, s, n);
    else
        rc = buf_base64(b, s, n);
    if (rc)
        return rc;
    if (buf_put(b, enc_key, enc_key_len) < 0)
        return -1;
    if (used == ENC_UTF8)
        return PUTS(b, "\"utf8\"");
    if (used == ENC_HEX)
        return PUTS(b, "\"hex\"");
    return PUTS(b, "\"base64\"");
}

static PyObject *
buf_finish(Buf *b)
{
    PyObject *r = PyUnicode_DecodeUTF8(b->p ? b->p : "", b->len, "strict");
    PyMem_Free(b->p);
    b->p = NULL;
    return r;
}

#define SLOT_GET(obj, l, i) (*(PyObject **)((char *)(obj) + (l)->off[(i)]))

static Layout render_event_layout, render_record_layout, render_decoded_layout;

/* The record, and its decoded payload (NULL when None), of one RecordEvent; 1 when
 * the event is not of the plain shape these renderers handle. */
static int
event_parts(PyObject *ev, PyObject **rec, PyObject **dec)
{
    PyObject *r, *d, *c;
    if ((PyObject *)Py_TYPE(ev) != (PyObject *)render_event_layout.type)
        return 1;
    r = SLOT_GET(ev, &render_event_layout, 0);
    d = SLOT_GET(ev, &render_event_layout, 1);
    c = SLOT_GET(ev, &render_event_layout, 2);
    if (r == NULL || d == NULL || c != Py_None)
        return 1;
    if ((PyObject *)Py_TYPE(r) != (PyObject *)render_record_layout.type)
        return 1;
    if (d == Py_None)
        d = NULL;
    else if ((PyObject *)Py_TYPE(d) != (PyObject *)render_decoded_layout.type)
        return 1;
    *rec = r;
    *dec = d;
    return 0;
}

static const char *const RENDER_RECORD_FIELDS[] = {"offset", "timestamp", "key", "value",
                                                   "headers", "sequence", "size"};
enum { RR_OFFSET, RR_TIMESTAMP, RR_KEY, RR_VALUE, RR_HEADERS, RR_SEQUENCE, RR_SIZE };

static int
render_setup(PyObject *event_cls, PyObject *record_cls, PyObject *decoded_cls)
{
    if (layout_get(&render_event_layout, event_cls, EVENT_FIELDS, 3) < 0 ||
        layout_get(&render_record_layout, record_cls, RENDER_RECORD_FIELDS, 7) < 0 ||
        layout_get(&render_decoded_layout, decoded_cls, DECODED_FIELDS, 6) < 0)
        return -1;
    return 0;
}

/* -1 for None, len() for bytes; 1 (not handled) for anything else. */
static int
payload_size(PyObject *o, long long *n)
{
    if (o == Py_None)
        *n = -1;
    else if (PyBytes_CheckExact(o))
        *n = PyBytes_GET_SIZE(o);
    else
        return 1;
    return 0;
}

#define TRY(expr)                                                                            \
    do {                                                                                     \
        int rc_ = (expr);                                                                    \
        if (rc_) {                                                                           \
            rc = rc_;                                                                        \
            goto out;                                                                        \
        }                                                                                    \
    } while (0)

/* text_record_lines(events, timestamp_type, skip_metadata, print_contents, RecordEvent,
 *                   Record, Decoded) -> str | NotImplemented
 * kdump.render.text.record_lines for a v2 batch that is not a control batch, every
 * line ending with a newline. */
static PyObject *
sp_text_record_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *events, *ts_type;
    int skip, contents, rc = 0;
    Py_ssize_t i, n;
    Buf b = {NULL, 0, 0};

    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "text_record_lines takes 7 arguments");
        return NULL;
    }
    events = args[0];
    ts_type = args[1];
    if (!PyList_CheckExact(events) || !PyUnicode_Check(ts_type))
        Py_RETURN_NOTIMPLEMENTED;
    if ((skip = PyObject_IsTrue(args[2])) < 0 || (contents = PyObject_IsTrue(args[3])) < 0)
        return NULL;
    if (render_setup(args[4], args[5], args[6]) < 0)
        return NULL;
    n = PyList_GET_SIZE(events);
    for (i = 0; i < n; i++) {
        PyObject *rec, *dec, *headers;
        int later = 0; /* "prefix" is a space once something was written */
        TRY(event_parts(PyList_GET_ITEM(events, i), &rec, &dec));
        if (!skip) {
            long long ks, vs;
            Py_ssize_t h, nh;
            TRY(payload_size(SLOT_GET(rec, &render_record_layout, RR_KEY), &ks));
            TRY(payload_size(SLOT_GET(rec, &render_record_layout, RR_VALUE), &vs));
            TRY(PUTS(&b, "| offset: "));
            TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_OFFSET)));
            TRY(PUTS(&b, " "));
            TRY(buf_str(&b, ts_type));
            TRY(PUTS(&b, ": "));
            TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_TIMESTAMP)));
            TRY(PUTS(&b, " keySize: "));
            TRY(buf_i64(&b, ks));
            TRY(PUTS(&b, " valueSize: "));
            TRY(buf_i64(&b, vs));
            TRY(PUTS(&b, " sequence: "));
            TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_SEQUENCE)));
            TRY(PUTS(&b, " headerKeys: ["));
            headers = SLOT_GET(rec, &render_record_layout, RR_HEADERS);
            if (!PyList_CheckExact(headers))
                TRY(1);
            nh = PyList_GET_SIZE(headers);
            for (h = 0; h < nh; h++) {
                PyObject *pair = PyList_GET_ITEM(headers, h), *k;
                if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
                    TRY(1);
                k = PyTuple_GET_ITEM(pair, 0);
                if (!PyBytes_CheckExact(k))
                    TRY(1);
                if (h)
                    TRY(PUTS(&b, ","));
                TRY(buf_utf8_replace(&b, PyBytes_AS_STRING(k), PyBytes_GET_SIZE(k)));
            }
            TRY(PUTS(&b, "]"));
            later = 1;
        }
        if (contents && dec != NULL) {
            PyObject *kt = SLOT_GET(dec, &render_decoded_layout, 0);
            PyObject *vt = SLOT_GET(dec, &render_decoded_layout, 1);
            if (kt == NULL || vt == NULL)
                TRY(1);
            if (kt != Py_None) {
                TRY(later ? PUTS(&b, " key: ") : PUTS(&b, "| key: "));
                TRY(buf_str(&b, kt));
            }
            if (vt != Py_None) {
                TRY(PUTS(&b, " payload: "));
                TRY(buf_str(&b, vt));
            }
        }
        TRY(PUTS(&b, "\n"));
    }
out:
    if (rc) {
        PyMem_Free(b.p);
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    return buf_finish(&b);
}

/* json_record_lines(events, prefix, timestamp_type_json, encoding, RecordEvent, Record,
 *                   Decoded) -> str | NotImplemented
 * kdump.render.jsonl.record_object of each event of a v2 batch, as JsonRenderer writes
 * it (compact, ensure_ascii=False, one object per line), for events whose payloads are
 * written raw: no decoded structure, no decode error, no control record.  ``prefix``
 * holds everything up to the offset value. */
static PyObject *
sp_json_record_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *events, *prefix, *tt;
    int enc, rc = 0;
    Py_ssize_t i, n;
    Buf b = {NULL, 0, 0};

    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "json_record_lines takes 7 arguments");
        return NULL;
    }
    events = args[0];
    prefix = args[1];
    tt = args[2];
    if (!PyList_CheckExact(events) || !PyUnicode_Check(prefix) || !PyUnicode_Check(tt) ||
        !PyLong_Check(args[3]))
        Py_RETURN_NOTIMPLEMENTED;
    enc = (int)PyLong_AsLong(args[3]);
    if (enc == -1 && PyErr_Occurred())
        return NULL;
    if (enc < ENC_UTF8 || enc > ENC_HEX)
        Py_RETURN_NOTIMPLEMENTED;
    if (render_setup(args[4], args[5], args[6]) < 0)
        return NULL;
    n = PyList_GET_SIZE(events);
    for (i = 0; i < n; i++) {
        PyObject *rec, *dec, *key, *value, *headers;
        long long ks, vs;
        Py_ssize_t h, nh;
        TRY(event_parts(PyList_GET_ITEM(events, i), &rec, &dec));
        if (dec != NULL) {
            /* structured payloads and decode errors are Python's business */
            PyObject *kj = SLOT_GET(dec, &render_decoded_layout, 2);
            PyObject *vj = SLOT_GET(dec, &render_decoded_layout, 3);
            PyObject *err = SLOT_GET(dec, &render_decoded_layout, 4);
            if (kj != Py_None || vj != Py_None || err != Py_None)
                TRY(1);
        }
        key = SLOT_GET(rec, &render_record_layout, RR_KEY);
        value = SLOT_GET(rec, &render_record_layout, RR_VALUE);
        headers = SLOT_GET(rec, &render_record_layout, RR_HEADERS);
        TRY(payload_size(key, &ks));
        TRY(payload_size(value, &vs));
        if (!PyList_CheckExact(headers))
            TRY(1);
        TRY(buf_str(&b, prefix));
        TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_OFFSET)));
        TRY(PUTS(&b, ",\"timestamp\":"));
        TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_TIMESTAMP)));
        TRY(PUTS(&b, ",\"timestamp_type\":"));
        TRY(buf_str(&b, tt));
        TRY(PUTS(&b, ",\"key_size\":"));
        TRY(buf_i64(&b, ks));
        TRY(PUTS(&b, ",\"value_size\":"));
        TRY(buf_i64(&b, vs));
        TRY(PUTS(&b, ",\"key\":"));
        TRY(buf_payload(&b, key, enc, ",\"key_encoding\":", 16));
        TRY(PUTS(&b, ",\"value\":"));
        TRY(buf_payload(&b, value, enc, ",\"value_encoding\":", 18));
        TRY(PUTS(&b, ",\"headers\":["));
        nh = PyList_GET_SIZE(headers);
        for (h = 0; h < nh; h++) {
            PyObject *pair = PyList_GET_ITEM(headers, h);
            if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
                TRY(1);
            TRY(h ? PUTS(&b, ",{\"key\":") : PUTS(&b, "{\"key\":"));
            /* header keys are Strings in Kafka: text under every encoding */
            TRY(buf_payload(&b, PyTuple_GET_ITEM(pair, 0), ENC_UTF8, ",\"key_encoding\":", 16));
            TRY(PUTS(&b, ",\"value\":"));
            TRY(buf_payload(&b, PyTuple_GET_ITEM(pair, 1), enc, ",\"value_encoding\":", 18));
            TRY(PUTS(&b, "}"));
        }
        TRY(PUTS(&b, "],\"sequence\":"));
        TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_SEQUENCE)));
        TRY(PUTS(&b, ",\"size\":"));
        TRY(buf_int(&b, SLOT_GET(rec, &render_record_layout, RR_SIZE)));
        TRY(PUTS(&b, "}\n"));
    }
out:
    if (rc) {
        PyMem_Free(b.p);
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    return buf_finish(&b);
}
#undef TRY

/* ---------------------------------------------------------------------------------
 * CRC-32C (Castagnoli), as the crc32c package computes it: SSE 4.2 instructions on
 * three interleaved streams where the CPU has them (Mark Adler's method), else
 * slicing-by-8 tables.
 * --------------------------------------------------------------------------------- */
#define CRC32C_POLY 0x82f63b78u
static uint32_t crc_table[8][256];

static void
crc_sw_init(void)
{
    uint32_t n, c, k;
    for (n = 0; n < 256; n++) {
        c = n;
        for (k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_table[0][n] = c;
    }
    for (n = 0; n < 256; n++) {
        c = crc_table[0][n];
        for (k = 1; k < 8; k++) {
            c = crc_table[0][c & 0xff] ^ (c >> 8);
            crc_table[k][n] = c;
        }
    }
}

static uint32_t
crc32c_sw(uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~crc;
    while (n && ((uintptr_t)p & 7)) {
        c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
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
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
            crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
            crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

static uint32_t (*crc32c_impl)(uint32_t, const unsigned char *, size_t) = crc32c_sw;

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
#endif

static void
crc_init(void)
{
    crc_sw_init();
#ifdef HAVE_CRC_HW
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) {
        crc_zeros(crc_long, CRC_LONG);
        crc_zeros(crc_short, CRC_SHORT);
        crc32c_impl = crc32c_hw;
    }
#endif
}

/* crc32c(data, start=0, end=len(data)) -> int: CRC-32C of data[start:end]. */
static PyObject *
sp_crc32c(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start = 0, end;
    uint32_t crc;
    if (nargs < 1 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "crc32c(data, start=0, end=len(data))");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    end = view.len;
    if (nargs > 1) {
        start = PyLong_AsSsize_t(args[1]);
        if (start == -1 && PyErr_Occurred())
            goto fail;
    }
    if (nargs > 2) {
        end = PyLong_AsSsize_t(args[2]);
        if (end == -1 && PyErr_Occurred())
            goto fail;
    }
    /* as a slice would: clamped to the data, empty when reversed */
    if (start < 0 || end < 0) {
        PyErr_SetString(PyExc_ValueError, "crc32c: negative position");
        goto fail;
    }
    if (end > view.len)
        end = view.len;
    if (start > end)
        start = end;
    Py_BEGIN_ALLOW_THREADS
    crc = crc32c_impl(0, (const unsigned char *)view.buf + start, (size_t)(end - start));
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
fail:
    PyBuffer_Release(&view);
    return NULL;
}

/* ---------------------------------------------------------------------------------
 * CRC-32 (IEEE 802.3, zlib's crc32) of legacy messages: slicing-by-8 tables.
 * --------------------------------------------------------------------------------- */
#define CRC32_POLY 0xedb88320u
static uint32_t crc32_table[8][256];

static void
crc32_init(void)
{
    uint32_t n, c, k;
    for (n = 0; n < 256; n++) {
        c = n;
        for (k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ CRC32_POLY : c >> 1;
        crc32_table[0][n] = c;
    }
    for (n = 0; n < 256; n++) {
        c = crc32_table[0][n];
        for (k = 1; k < 8; k++) {
            c = crc32_table[0][c & 0xff] ^ (c >> 8);
            crc32_table[k][n] = c;
        }
    }
}

static uint32_t
crc32_ieee(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    while (n && ((uintptr_t)p & 7)) {
        c = crc32_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
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
        c = crc32_table[7][lo & 0xff] ^ crc32_table[6][(lo >> 8) & 0xff] ^
            crc32_table[5][(lo >> 16) & 0xff] ^ crc32_table[4][lo >> 24] ^
            crc32_table[3][hi & 0xff] ^ crc32_table[2][(hi >> 8) & 0xff] ^
            crc32_table[1][(hi >> 16) & 0xff] ^ crc32_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = crc32_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

/* crc32(data, start=0, end=len(data)) -> int: zlib.crc32 of data[start:end]. */
static PyObject *
sp_crc32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start = 0, end;
    uint32_t crc;
    if (nargs < 1 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "crc32(data, start=0, end=len(data))");
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
        PyErr_SetString(PyExc_ValueError, "crc32: negative position");
        goto fail;
    }
    if (end > view.len)
        end = view.len;
    if (start > end)
        start = end;
    crc = crc32_ieee((const unsigned char *)view.buf + start, (size_t)(end - start));
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
fail:
    PyBuffer_Release(&view);
    return NULL;
}

/* ---------------------------------------------------------------------------------
 * verify_run(data, start, stop, prev_last, segment_base, deep, max_headers,
 *            max_batch_bytes, decompress)
 *   -> (position, batches, records, last offset | None)
 *
 * verify-crc's walk over a buffer of a log (issue 33): from data[start], while a whole
 * batch lies before data[stop], every batch verify-crc reports nothing about is
 * consumed here and only counted; the walk stops before the first batch that is
 * anything else (or that is not whole in the buffer), which the Python code then
 * frames and reports on (kdump.ops.verify.verify_log: these are exactly its batches
 * with no finding).  Consumed:
 *
 * - v2 (magic 2, size field at least V2_MIN_BATCH_LENGTH, no larger than
 *   max_batch_bytes + RECORD_BATCH_OVERHEAD): CRC-32C matches; last offset above
 *   ``prev_last`` (or, first of a segment, not below ``segment_base``); with ``deep``:
 *   the payload (decompressed by ``decompress(codec, bytes, limit)``, which returns
 *   None where Python would report the payload) walks without a record fault, offset
 *   deltas ascend from 0 and end at lastOffsetDelta, (CreateTime, no delete horizon,
 *   maxTimestamp >= 0) the largest record timestamp is maxTimestamp, and a control
 *   batch's records are all well-formed ABORT/COMMIT markers.
 * - v0/v1 (size field at least RECORD_OVERHEAD_V0): CRC-32 matches, offsets as above;
 *   with ``deep``: uncompressed, key and value lengths filling the message exactly.
 *
 * The walk runs without the GIL (taken back for ``decompress`` only).
 * --------------------------------------------------------------------------------- */
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

/* What the records of one batch add up to, for the checks of ops/verify._check_v2. */
typedef struct {
    int64_t n, first_delta, last_delta, max_ts;
    int ascending;
} VStats;

/* A varint of at most ``max_`` bytes within ``lim_``, as rd_uvarint reads it (one and
 * two bytes inline); any fault returns 1: the batch is Python's. */
#define VR_VARINT(max_, lim_, out)                                                          \
    do {                                                                                    \
        uint64_t u_;                                                                        \
        if (pos + 1 < (lim_) && buf[pos] < 0x80)                                            \
            u_ = buf[pos++];                                                                \
        else if (pos + 1 < (lim_) && buf[pos + 1] < 0x80) {                                 \
            u_ = (uint64_t)(buf[pos] & 0x7F) | ((uint64_t)buf[pos + 1] << 7);               \
            pos += 2;                                                                       \
        }                                                                                   \
        else if (rd_uvarint(buf, &pos, (lim_), (max_), &u_))                                \
            return 1;                                                                       \
        (out) = zz(u_);                                                                     \
    } while (0)

/* The records of a v2 batch's payload buf[pos:end]: 0 when they walk as
 * kdump.records.walk.walk_v2 walks them with no fault (and, ``control``, each is an
 * ABORT/COMMIT marker parse_control accepts), *s filled; 1 otherwise. */
static int
verify_records(const unsigned char *buf, int64_t pos, int64_t end, int64_t count,
               int64_t headers_left, int control, VStats *s)
{
    int64_t rec;
    s->n = 0;
    s->ascending = 1;
    s->first_delta = s->last_delta = -1;
    s->max_ts = 0;
    if (count < 0)
        return 1;
    for (rec = 0; rec < count; rec++) {
        int64_t length, limit, ts, od, klen, key_at, vlen, value_at, nh, h;
        if (pos >= end)
            return 1;
        VR_VARINT(5, end, length);
        limit = pos + length;
        if (length < 6 || limit > end)
            return 1;
        pos += 1; /* attributes */
        VR_VARINT(10, limit, ts);
        VR_VARINT(5, limit, od);
        VR_VARINT(5, limit, klen);
        key_at = pos;
        if (klen >= 0) {
            if (pos + klen > limit)
                return 1;
            pos += klen;
        }
        VR_VARINT(5, limit, vlen);
        value_at = pos;
        if (vlen >= 0) {
            if (pos + vlen > limit)
                return 1;
            pos += vlen;
        }
        VR_VARINT(5, limit, nh);
        if (nh < 0 || nh > headers_left)
            return 1;
        headers_left -= nh;
        for (h = 0; h < nh; h++) {
            int64_t hk, hv;
            VR_VARINT(5, limit, hk);
            if (hk < 0 || pos + hk > limit)
                return 1;
            pos += hk;
            VR_VARINT(5, limit, hv);
            if (hv >= 0) {
                if (pos + hv > limit)
                    return 1;
                pos += hv;
            }
        }
        if (pos != limit)
            return 1;
        if (control) {
            /* kdump.records.control.parse_control: ABORT/COMMIT with their value;
             * anything else (KRaft control records: a schema to read) is Python's */
            int type;
            if (klen < KL_CONTROL_KEY_SIZE || be16(buf + key_at) < 0)
                return 1;
            type = be16(buf + key_at + 2);
            if (type != KL_CONTROL_ABORT && type != KL_CONTROL_COMMIT)
                return 1;
            if (vlen < KL_END_TXN_MARKER_VALUE_SIZE || be16(buf + value_at) < 0)
                return 1;
        }
        if (s->n == 0) {
            s->first_delta = od;
            s->max_ts = ts;
        }
        else {
            if (od <= s->last_delta)
                s->ascending = 0;
            if (ts > s->max_ts)
                s->max_ts = ts;
        }
        s->last_delta = od;
        s->n += 1;
    }
    return pos != end;
}

/* The v2 batch at b (total bytes, CRC checked): 0 when verify-crc has nothing to say
 * about its records (*records set), 1 when it has, -1 on a Python error. */
static int
verify_v2_records(const unsigned char *b, int64_t total, int64_t headers_max,
                  int64_t max_batch_bytes, PyObject *decompress, int64_t *records)
{
    int attributes = (b[KL_V2_ATTRIBUTES_OFFSET] << 8) | b[KL_V2_ATTRIBUTES_OFFSET + 1];
    int32_t last_delta = be32(b + KL_V2_LAST_OFFSET_DELTA_OFFSET);
    int32_t count = be32(b + KL_V2_RECORDS_COUNT_OFFSET);
    int64_t base_ts = be64(b + KL_V2_BASE_TIMESTAMP_OFFSET);
    int64_t max_timestamp = be64(b + KL_V2_MAX_TIMESTAMP_OFFSET), top;
    int codec = attributes & KL_V2_COMPRESSION_MASK, rc;
    VStats s;
    if (codec == 0) {
        rc = verify_records(b, KL_V2_RECORDS_OFFSET, total, count, headers_max,
                            attributes & KL_V2_CONTROL_FLAG, &s);
    }
    else {
        PyObject *raw, *res;
        /* the caller holds the GIL here */
        if (decompress == Py_None)
            return 1;
        raw = PyBytes_FromStringAndSize((const char *)b + KL_V2_RECORDS_OFFSET,
                                        (Py_ssize_t)(total - KL_V2_RECORDS_OFFSET));
        if (raw == NULL)
            return -1;
        res = PyObject_CallFunction(decompress, "iOL", codec, raw, (long long)max_batch_bytes);
        Py_DECREF(raw);
        if (res == NULL)
            return -1;
        if (!PyBytes_Check(res)) { /* None: the payload is Python's to report */
            Py_DECREF(res);
            return 1;
        }
        rc = verify_records((const unsigned char *)PyBytes_AS_STRING(res), 0,
                            PyBytes_GET_SIZE(res), count, headers_max,
                            attributes & KL_V2_CONTROL_FLAG, &s);
        Py_DECREF(res);
    }
    if (rc)
        return 1;
    if (s.n) {
        if (s.first_delta < 0 || !s.ascending || s.last_delta != last_delta)
            return 1;
        if (!(attributes & KL_V2_TIMESTAMP_TYPE_MASK) &&
            !(attributes & KL_V2_DELETE_HORIZON_FLAG) && max_timestamp >= 0) {
            if (__builtin_add_overflow(base_ts, s.max_ts, &top) || top != max_timestamp)
                return 1;
        }
    }
    *records = s.n;
    return 0;
}

/* The key and value lengths of an uncompressed legacy message fill it exactly
 * (kdump.records.legacy._key_value): 0 when they do. */
static int
verify_legacy_message(const unsigned char *b, int64_t total, int magic)
{
    int64_t pos = magic >= 1 ? KL_LEGACY_V1_KEY_SIZE_OFFSET : KL_LEGACY_V0_KEY_SIZE_OFFSET;
    int32_t klen, vlen;
    if (pos + 4 > total)
        return 1;
    klen = be32(b + pos);
    pos += 4;
    if (klen >= 0) {
        if (pos + klen > total)
            return 1;
        pos += klen;
    }
    if (pos + 4 > total)
        return 1;
    vlen = be32(b + pos);
    pos += 4;
    if (vlen >= 0) {
        if (pos + vlen > total)
            return 1;
        pos += vlen;
    }
    return pos != total;
}

static PyObject *
sp_verify_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    const unsigned char *d;
    int64_t start, stop, prev_last = 0, segment_base = 0, pos, batches = 0, records = 0;
    int64_t last = 0, headers_max, max_batch_bytes;
    int have_prev, have_base, deep, rc, failed = 0;
    PyObject *decompress;
    PyThreadState *ts;

    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "verify_run takes 9 arguments");
        return NULL;
    }
    if ((rc = arg_i64(args[1], &start)) || (rc = arg_i64(args[2], &stop)) ||
        (rc = arg_i64(args[6], &headers_max)) || (rc = arg_i64(args[7], &max_batch_bytes)))
        goto declined_rc;
    have_prev = args[3] != Py_None;
    if (have_prev && (rc = arg_i64(args[3], &prev_last)))
        goto declined_rc;
    have_base = args[4] != Py_None;
    if (have_base && (rc = arg_i64(args[4], &segment_base)))
        goto declined_rc;
    if ((deep = PyObject_IsTrue(args[5])) < 0)
        return NULL;
    decompress = args[8];
    if (max_batch_bytes < 0 || max_batch_bytes > ((int64_t)1 << 40))
        goto declined;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (start < 0 || stop > (int64_t)view.len)
        stop = -1; /* nothing done */
    d = (const unsigned char *)view.buf;
    pos = start;
    ts = PyEval_SaveThread();
    while (stop - pos >= KL_HEADER_SIZE_UP_TO_MAGIC) {
        const unsigned char *b = d + pos;
        int64_t offset = be64(b + KL_V2_BASE_OFFSET_OFFSET);
        int64_t size = be32(b + KL_V2_LENGTH_OFFSET), total, last_offset, n = 0;
        int magic = b[KL_MAGIC_OFFSET];
        if (magic == 2) {
            uint32_t stored;
            if (stop - pos < KL_RECORD_BATCH_OVERHEAD || size < KL_V2_MIN_BATCH_LENGTH)
                break;
            total = KL_LOG_OVERHEAD + size;
            if (total > stop - pos || total > max_batch_bytes + KL_RECORD_BATCH_OVERHEAD)
                break;
            if (__builtin_add_overflow(offset, (int64_t)be32(b + KL_V2_LAST_OFFSET_DELTA_OFFSET),
                                       &last_offset))
                break;
            if (have_prev ? last_offset <= prev_last : (have_base && last_offset < segment_base))
                break;
            stored = (uint32_t)be32(b + KL_V2_CRC_OFFSET);
            if (crc32c_impl(0, b + KL_V2_ATTRIBUTES_OFFSET,
                            (size_t)(total - KL_V2_ATTRIBUTES_OFFSET)) != stored)
                break;
            if (deep) {
                int codec = b[KL_V2_ATTRIBUTES_OFFSET + 1] & KL_V2_COMPRESSION_MASK;
                if (codec) /* decompress is Python's: with the GIL */
                    PyEval_RestoreThread(ts);
                rc = verify_v2_records(b, total, headers_max, max_batch_bytes,
                                       codec ? decompress : Py_None, &n);
                if (codec)
                    ts = PyEval_SaveThread();
                if (rc < 0) {
                    failed = 1;
                    break;
                }
                if (rc)
                    break;
            }
        }
        else if (magic == 0 || magic == 1) {
            uint32_t stored;
            if (size < KL_RECORD_OVERHEAD_V0)
                break;
            total = KL_LOG_OVERHEAD + size;
            if (total > stop - pos || total > max_batch_bytes + KL_RECORD_BATCH_OVERHEAD)
                break;
            last_offset = offset;
            if (have_prev ? last_offset <= prev_last : (have_base && last_offset < segment_base))
                break;
            stored = (uint32_t)be32(b + KL_LEGACY_CRC_OFFSET);
            if (crc32_ieee(b + KL_MAGIC_OFFSET, (size_t)(total - KL_MAGIC_OFFSET)) != stored)
                break;
            if (deep) {
                if (b[KL_LEGACY_ATTRIBUTES_OFFSET] & KL_LEGACY_COMPRESSION_MASK)
                    break; /* a compressed wrapper: Python reads its inner messages */
                if (verify_legacy_message(b, total, magic))
                    break;
                n = 1;
            }
        }
        else
            break;
        records += n;
        have_prev = 1;
        prev_last = last = last_offset;
        batches += 1;
        pos += total;
    }
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&view);
    if (failed)
        return NULL;
    if (batches == 0)
        return Py_BuildValue("(LiiO)", (long long)start, 0, 0, Py_None);
    return Py_BuildValue("(LLLL)", (long long)pos, (long long)batches, (long long)records,
                         (long long)last);
declined_rc:
    if (rc < 0)
        return NULL;
declined:
    return Py_BuildValue("(LiiO)", (long long)0, 0, 0, Py_None);
}

/* ---------------------------------------------------------------------------------
 * record_offsets(records, last_offset) -> (last_offset, [(after, next), ...])
 *   | NotImplemented
 *
 * dump's "non-consecutive offsets" bookkeeping over one batch's records (twin:
 * kdump.ops.dump.record_offsets_py): each record whose offset is not the one after the
 * previous record's (the first record's: after ``last_offset``, unless it is -1) gives
 * a pair; the last record's offset is the new ``last_offset``.
 * --------------------------------------------------------------------------------- */
static Layout offset_layout; /* Record: offset */
static const char *const OFFSET_FIELDS[] = {"offset"};

static PyObject *
sp_record_offsets(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *records, *gaps, *res;
    Py_ssize_t i, n;
    int64_t last, next_expected = 0;
    int rc, have_next;

    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "record_offsets takes 2 arguments");
        return NULL;
    }
    records = args[0];
    if (!PyList_CheckExact(records))
        Py_RETURN_NOTIMPLEMENTED;
    if ((rc = arg_i64(args[1], &last))) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    n = PyList_GET_SIZE(records);
    /* every offset read first: anything out of domain leaves the work to the twin */
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i);
        if (layout_get(&offset_layout, (PyObject *)Py_TYPE(rec), OFFSET_FIELDS, 1) < 0) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    gaps = PyList_New(0);
    if (gaps == NULL)
        return NULL;
    have_next = last != -1 && !__builtin_add_overflow(last, 1, &next_expected);
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i), *o, *pair;
        int64_t off;
        if (layout_get(&offset_layout, (PyObject *)Py_TYPE(rec), OFFSET_FIELDS, 1) < 0)
            goto fail;
        o = *(PyObject **)((char *)rec + offset_layout.off[0]);
        if (o == NULL || (rc = arg_i64(o, &off))) {
            if (o != NULL && rc < 0)
                goto fail;
            Py_DECREF(gaps);
            Py_RETURN_NOTIMPLEMENTED;
        }
        /* last + 1 past int64: no int64 offset follows it */
        if (last != -1 && (!have_next || off != next_expected)) {
            pair = Py_BuildValue("(LL)", (long long)last, (long long)off);
            if (pair == NULL || PyList_Append(gaps, pair) < 0) {
                Py_XDECREF(pair);
                goto fail;
            }
            Py_DECREF(pair);
        }
        last = off;
        have_next = last != -1 && !__builtin_add_overflow(last, 1, &next_expected);
    }
    res = Py_BuildValue("(LN)", (long long)last, gaps);
    return res;
fail:
    Py_DECREF(gaps);
    return NULL;
}

/* ---------------------------------------------------------------------------------
 * number_key_indices(records) -> [index, ...] | NotImplemented
 *
 * The records dump's auto decoding shows with a number key (twin:
 * kdump.decoders.simple.number_key_indices_py): a key of exactly 8 or 4 bytes that is
 * not text (kdump.decoders.simple.is_text: valid UTF-8 whose characters are all
 * printable, tab, newline or carriage return).
 * --------------------------------------------------------------------------------- */
static Layout key_layout; /* Record: key */
static const char *const KEY_FIELDS[] = {"key"};

/* 1: text, 0: not text, -1: a Python error */
static int
key_is_text(const unsigned char *k, Py_ssize_t len)
{
    Py_ssize_t i, n;
    int ascii = 1, kind;
    PyObject *u;
    const void *data;
    for (i = 0; i < len; i++) {
        unsigned c = k[i];
        if (c >= 0x80) {
            ascii = 0;
            break;
        }
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
            return 0;
    }
    if (ascii)
        return 1;
    u = PyUnicode_DecodeUTF8((const char *)k, len, "strict");
    if (u == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    n = PyUnicode_GET_LENGTH(u);
    kind = PyUnicode_KIND(u);
    data = PyUnicode_DATA(u);
    for (i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!(Py_UNICODE_ISPRINTABLE(ch) || ch == '\t' || ch == '\n' || ch == '\r')) {
            Py_DECREF(u);
            return 0;
        }
    }
    Py_DECREF(u);
    return 1;
}

static PyObject *
sp_number_key_indices(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *records, *out;
    Py_ssize_t i, n;

    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "number_key_indices takes 1 argument");
        return NULL;
    }
    records = args[0];
    if (!PyList_CheckExact(records))
        Py_RETURN_NOTIMPLEMENTED;
    n = PyList_GET_SIZE(records);
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i), *key;
        if (layout_get(&key_layout, (PyObject *)Py_TYPE(rec), KEY_FIELDS, 1) < 0) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        key = *(PyObject **)((char *)rec + key_layout.off[0]);
        if (key == NULL || (key != Py_None && !PyBytes_CheckExact(key)))
            Py_RETURN_NOTIMPLEMENTED;
    }
    out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i), *key, *ix;
        Py_ssize_t len;
        int text;
        if (layout_get(&key_layout, (PyObject *)Py_TYPE(rec), KEY_FIELDS, 1) < 0)
            goto fail;
        key = *(PyObject **)((char *)rec + key_layout.off[0]);
        if (key == NULL || key == Py_None)
            continue;
        len = PyBytes_GET_SIZE(key);
        if (len != 4 && len != 8)
            continue;
        text = key_is_text((const unsigned char *)PyBytes_AS_STRING(key), len);
        if (text < 0)
            goto fail;
        if (text)
            continue;
        ix = PyLong_FromSsize_t(i);
        if (ix == NULL || PyList_Append(out, ix) < 0) {
            Py_XDECREF(ix);
            goto fail;
        }
        Py_DECREF(ix);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* ---------------------------------------------------------------------------------
 * size_run(data, start, stop, end, check_next, max_headers, max_batch_bytes,
 *          decompress, producer_ids, deep)
 *   -> (position, batches, last_offset, totals) | (start, 0, 0, None)
 *
 * size-report's accounting, ``deep`` or --shallow (twin: kdump.ops.size_run.size_run_py),
 * of the run
 * of v2 batches from data[start] that kdump.records.file_records.LogReader frames with
 * nothing to say and kdump.ops.size_report._batch accounts with no error: it stops
 * before a batch LogReader or _batch would have a word about (a v0/v1 entry, a header
 * it cannot frame, a batch past ``stop`` or --max-batch-bytes, a codec id above 4, a
 * payload ``decompress`` gives None for, an offset or timestamp past int64), and,
 * ``check_next``, a batch not followed by a batch header or the reader's end (index
 * ``end``: may lie past the buffer), and a batch whose CRC-32C fails (its records are
 * claimed, not readable: Python accounts it).  ``totals``: records,
 * control_batches, control_records, transactional_batches, transactional_bytes,
 * key_bytes, value_bytes, header_bytes, uncompressed_bytes, overhead_bytes,
 * first_offset, last_offset, min_timestamp, max_timestamp (None when unset), then
 * ((codec id, batches, stored bytes, uncompressed bytes), ...) in the order first
 * seen, then the records the headers claim (records counts added up); producer ids
 * >= 0 are added to the set ``producer_ids``.
 * --------------------------------------------------------------------------------- */
typedef struct {
    int64_t records, control_batches, control_records, txn_batches, txn_bytes;
    int64_t key_bytes, value_bytes, header_bytes, unc_bytes, overhead_bytes;
    int64_t first_offset, last_offset, min_ts, max_ts, header_records;
    int have_first, have_last, have_min_ts, have_max_ts;
    int64_t codec[5][3];
    int order[5], n_codecs;
} SizeAcc;

static PyObject *
opt_i64(int have, int64_t v)
{
    if (!have)
        Py_RETURN_NONE;
    return PyLong_FromLongLong((long long)v);
}

static PyObject *
sp_size_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    const unsigned char *d;
    int64_t start, stop, end, headers_max, max_batch_bytes, pos, batches = 0, last = 0;
    int check_next, deep, rc, failed = 0, i;
    PyObject *decompress, *producer_ids, *codecs = NULL, *res;
    SizeAcc a;

    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "size_run takes 10 arguments");
        return NULL;
    }
    if ((rc = arg_i64(args[1], &start)) || (rc = arg_i64(args[2], &stop)) ||
        (rc = arg_i64(args[3], &end)) || (rc = arg_i64(args[5], &headers_max)) ||
        (rc = arg_i64(args[6], &max_batch_bytes))) {
        if (rc < 0)
            return NULL;
        return Py_BuildValue("(LiiO)", (long long)0, 0, 0, Py_None);
    }
    if ((check_next = PyObject_IsTrue(args[4])) < 0 || (deep = PyObject_IsTrue(args[9])) < 0)
        return NULL;
    decompress = args[7];
    producer_ids = args[8];
    if (!PySet_Check(producer_ids)) {
        PyErr_SetString(PyExc_TypeError, "producer_ids must be a set");
        return NULL;
    }
    if (max_batch_bytes < 0 || max_batch_bytes > ((int64_t)1 << 40))
        return Py_BuildValue("(LiiO)", (long long)start, 0, 0, Py_None);
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (start < 0 || stop > (int64_t)view.len || end < stop)
        stop = -1; /* nothing done */
    memset(&a, 0, sizeof(a));
    d = (const unsigned char *)view.buf;
    pos = start;
    while (stop - pos >= KL_RECORD_BATCH_OVERHEAD) {
        const unsigned char *b = d + pos, *payload;
        int64_t offset = be64(b + KL_V2_BASE_OFFSET_OFFSET);
        int64_t size = be32(b + KL_V2_LENGTH_OFFSET), total, last_offset, nxt;
        int64_t base_ts, max_ts, ts_lo, ts_hi, top, count, pstart, pend, unc, producer;
        int attributes, codec, slot;
        PyObject *raw = NULL;
        Stats s;
        Fault f;
        int64_t wpos;
        if (b[KL_MAGIC_OFFSET] != 2 || size < KL_V2_MIN_BATCH_LENGTH)
            break;
        total = KL_LOG_OVERHEAD + size;
        if (total > stop - pos || total > max_batch_bytes + KL_RECORD_BATCH_OVERHEAD)
            break;
        attributes = (b[KL_V2_ATTRIBUTES_OFFSET] << 8) | b[KL_V2_ATTRIBUTES_OFFSET + 1];
        codec = attributes & KL_V2_COMPRESSION_MASK;
        if (codec > 4)
            break;
        if (__builtin_add_overflow(offset, (int64_t)be32(b + KL_V2_LAST_OFFSET_DELTA_OFFSET),
                                   &last_offset))
            break;
        if (check_next) {
            /* LogReader._next_ok, else the CRC (a batch failing both is Python's) */
            int ok;
            nxt = pos + total;
            if (nxt >= end)
                ok = 1;
            else if (end - nxt <= KL_HEADER_SIZE_UP_TO_MAGIC)
                ok = 0;
            else if (stop - nxt < KL_HEADER_SIZE_UP_TO_MAGIC)
                break; /* the next header is past this buffer: Python reads it */
            else {
                int64_t nsize = be32(d + nxt + KL_V2_LENGTH_OFFSET);
                ok = d[nxt + KL_MAGIC_OFFSET] <= 2 && nsize >= KL_RECORD_OVERHEAD_V0 &&
                     nxt + KL_LOG_OVERHEAD + nsize <= end;
            }
            (void)ok; /* the CRC below decides either way */
        }
        /* a batch whose CRC-32C fails is Python's: its records are claimed, not readable */
        if (crc32c_impl(0, b + KL_V2_ATTRIBUTES_OFFSET, (size_t)(total - KL_V2_ATTRIBUTES_OFFSET)) !=
            (uint32_t)be32(b + KL_V2_CRC_OFFSET))
            break;
        count = be32(b + KL_V2_RECORDS_COUNT_OFFSET);
        base_ts = be64(b + KL_V2_BASE_TIMESTAMP_OFFSET);
        max_ts = be64(b + KL_V2_MAX_TIMESTAMP_OFFSET);
        ts_lo = ts_hi = max_ts;
        if (!deep) {
            /* --shallow: the header's count; the stored size of an uncompressed batch */
            stats_init(&s);
            s.n = count < 0 ? 0 : count;
            unc = codec == 0 ? total : 0;
            if (base_ts >= 0 && !(attributes & KL_V2_DELETE_HORIZON_FLAG) && base_ts < ts_lo)
                ts_lo = base_ts;
            goto accounted;
        }
        if (codec == 0) {
            payload = b;
            pstart = KL_V2_RECORDS_OFFSET;
            pend = total;
        }
        else {
            PyObject *stored = PyBytes_FromStringAndSize(
                (const char *)b + KL_V2_RECORDS_OFFSET, (Py_ssize_t)(total - KL_V2_RECORDS_OFFSET));
            if (stored == NULL) {
                failed = 1;
                break;
            }
            raw = PyObject_CallFunction(decompress, "iOL", codec, stored,
                                        (long long)max_batch_bytes);
            Py_DECREF(stored);
            if (raw == NULL) {
                failed = 1;
                break;
            }
            if (!PyBytes_Check(raw)) { /* None: the payload is Python's to report */
                Py_DECREF(raw);
                break;
            }
            payload = (const unsigned char *)PyBytes_AS_STRING(raw);
            pstart = 0;
            pend = PyBytes_GET_SIZE(raw);
        }
        stats_init(&s);
        (void)walk_v2(payload, pstart, pend, 0, count < 0 ? 0 : count, count < 0 ? 0 : count,
                      headers_max, headers_max, stats_cb, &s, &f, &wpos);
        Py_XDECREF(raw);
        unc = KL_RECORD_BATCH_OVERHEAD + (pend - pstart);
        if (s.n && !(attributes & KL_V2_TIMESTAMP_TYPE_MASK)) {
            if (__builtin_add_overflow(base_ts, s.min_ts, &ts_lo) ||
                __builtin_add_overflow(base_ts, s.max_ts, &top))
                break;
            ts_hi = top > max_ts ? top : max_ts;
        }
    accounted:
        producer = be64(b + KL_V2_PRODUCER_ID_OFFSET);
        if (producer >= 0) {
            PyObject *p = PyLong_FromLongLong((long long)producer);
            if (p == NULL || PySet_Add(producer_ids, p) < 0) {
                Py_XDECREF(p);
                failed = 1;
                break;
            }
            Py_DECREF(p);
        }
        /* accounted: nothing below can stop the walk */
        for (slot = 0; slot < a.n_codecs && a.order[slot] != codec; slot++)
            ;
        if (slot == a.n_codecs)
            a.order[a.n_codecs++] = codec;
        a.codec[codec][0] += 1;
        a.codec[codec][1] += total;
        a.codec[codec][2] += unc;
        if (attributes & KL_V2_TRANSACTIONAL_FLAG) {
            a.txn_batches += 1;
            a.txn_bytes += total;
        }
        if (attributes & KL_V2_CONTROL_FLAG) {
            a.control_batches += 1;
            a.control_records += s.n;
        }
        a.records += s.n;
        a.header_records += count < 0 ? 0 : count;
        a.key_bytes += s.key_bytes;
        a.value_bytes += s.value_bytes;
        a.header_bytes += s.header_bytes;
        a.unc_bytes += unc;
        if (deep)
            a.overhead_bytes += unc - s.key_bytes - s.value_bytes - s.header_bytes;
        if (!a.have_first || offset < a.first_offset)
            a.first_offset = offset, a.have_first = 1;
        if (!a.have_last || last_offset > a.last_offset)
            a.last_offset = last_offset, a.have_last = 1;
        if (deep || count > 0) {
            if (ts_lo >= 0 && (!a.have_min_ts || ts_lo < a.min_ts))
                a.min_ts = ts_lo, a.have_min_ts = 1;
            if (ts_hi >= 0 && (!a.have_max_ts || ts_hi > a.max_ts))
                a.max_ts = ts_hi, a.have_max_ts = 1;
        }
        last = last_offset;
        batches += 1;
        pos += total;
    }
    PyBuffer_Release(&view);
    if (failed)
        return NULL;
    if (batches == 0)
        return Py_BuildValue("(LiiO)", (long long)start, 0, 0, Py_None);
    codecs = PyTuple_New(a.n_codecs);
    if (codecs == NULL)
        return NULL;
    for (i = 0; i < a.n_codecs; i++) {
        int c = a.order[i];
        PyObject *t = Py_BuildValue("(iLLL)", c, (long long)a.codec[c][0],
                                    (long long)a.codec[c][1], (long long)a.codec[c][2]);
        if (t == NULL) {
            Py_DECREF(codecs);
            return NULL;
        }
        PyTuple_SET_ITEM(codecs, i, t);
    }
    res = Py_BuildValue(
        "(LLL(LLLLLLLLLLNNNNNL))", (long long)pos, (long long)batches, (long long)last,
        (long long)a.records, (long long)a.control_batches, (long long)a.control_records,
        (long long)a.txn_batches, (long long)a.txn_bytes, (long long)a.key_bytes,
        (long long)a.value_bytes, (long long)a.header_bytes, (long long)a.unc_bytes,
        (long long)a.overhead_bytes, opt_i64(a.have_first, a.first_offset),
        opt_i64(a.have_last, a.last_offset), opt_i64(a.have_min_ts, a.min_ts),
        opt_i64(a.have_max_ts, a.max_ts), codecs, (long long)a.header_records);
    return res;
}

/* ---------------------------------------------------------------------------------
 * batch_json(data, index, position, crc_valid, batch_head, record_head)
 *   -> (batch line, record prefix) | NotImplemented
 *
 * dump --format json's ``batch`` object of the v2 batch header at data[index] (twin:
 * kdump.render.jsonl.batch_object + record_prefix, with the fields of
 * jsonl.NATIVE_BATCH_FIELDS, the model's order): ``batch_head`` is its text up to the
 * file's value included ('{"type":"batch","file":"..."'), written by Python's JSON
 * writer; the line ends with a newline.  The record prefix continues ``record_head``
 * (up to '"batch_position":') to '"offset":', as record_prefix writes it.
 * NotImplemented where an int would not be json.dumps' (last offset past int64) and for
 * a magic below 2 (the object of a v0/v1 entry).
 * --------------------------------------------------------------------------------- */
static int
buf_bool(Buf *b, int v)
{
    return v ? PUTS(b, "true") : PUTS(b, "false");
}

/* A v2 batch header as kdump.records.v2.RecordBatch reads it (V2_HEADER: signed fields
 * signed), with the properties dump writes. */
typedef struct {
    int64_t base_offset, last_offset, base_ts, max_ts, producer_id, last_seq;
    int32_t length, ple, last_delta, base_seq, count;
    int16_t attributes, producer_epoch;
    int8_t magic;
    uint32_t crc;
    int codec, txn, control;
} V2Head;

static const char *const CODEC_NAME[] = {"none", "gzip", "snappy", "lz4", "zstd"};

/* 0: read; 1: not handled here (a magic below 2: v0/v1's fields; a last offset past
 * int64, which Python writes as the big int it is). */
static int
v2_head_read(const unsigned char *h, V2Head *v)
{
    v->base_offset = be64(h + KL_V2_BASE_OFFSET_OFFSET);
    v->length = be32(h + KL_V2_LENGTH_OFFSET);
    v->ple = be32(h + KL_V2_LENGTH_OFFSET + 4);
    v->magic = (int8_t)h[KL_MAGIC_OFFSET];
    v->crc = (uint32_t)be32(h + KL_V2_CRC_OFFSET);
    v->attributes = be16(h + KL_V2_ATTRIBUTES_OFFSET);
    v->last_delta = be32(h + KL_V2_LAST_OFFSET_DELTA_OFFSET);
    v->base_ts = be64(h + KL_V2_BASE_TIMESTAMP_OFFSET);
    v->max_ts = be64(h + KL_V2_MAX_TIMESTAMP_OFFSET);
    v->producer_id = be64(h + KL_V2_PRODUCER_ID_OFFSET);
    v->producer_epoch = be16(h + KL_V2_PRODUCER_ID_OFFSET + 8);
    v->base_seq = be32(h + KL_V2_PRODUCER_ID_OFFSET + 10);
    v->count = be32(h + KL_V2_RECORDS_COUNT_OFFSET);
    if (v->magic < 2 ||
        __builtin_add_overflow(v->base_offset, (int64_t)v->last_delta, &v->last_offset))
        return 1;
    v->codec = v->attributes & KL_V2_COMPRESSION_MASK;
    v->txn = (v->attributes & KL_V2_TRANSACTIONAL_FLAG) != 0;
    v->control = (v->attributes & KL_V2_CONTROL_FLAG) != 0;
    /* DefaultRecordBatch.incrementSequence (kdump.records.v2.increment_sequence) */
    if (v->base_seq == KL_NO_SEQUENCE)
        v->last_seq = KL_NO_SEQUENCE;
    else if ((int64_t)v->base_seq > (int64_t)KL_INT32_MAX - v->last_delta)
        v->last_seq = (int64_t)v->last_delta - ((int64_t)KL_INT32_MAX - v->base_seq) - 1;
    else
        v->last_seq = (int64_t)v->base_seq + v->last_delta;
    return 0;
}

/* CompressionType's name (kdump.layouts.CODEC_NAMES), else "unknown(N)". */
static int
buf_codec(Buf *b, int codec)
{
    if (codec <= 4)
        return buf_put(b, CODEC_NAME[codec], (Py_ssize_t)strlen(CODEC_NAME[codec]));
    if (PUTS(b, "unknown(") < 0 || buf_i64(b, codec) < 0 || PUTS(b, ")") < 0)
        return -1;
    return 0;
}

/* The batch's header at data[index] (args[0], args[1]): 0 read, 1 not handled, -1 error */
static int
v2_head_arg(PyObject *data, PyObject *index, V2Head *v)
{
    Py_buffer view;
    int64_t i;
    int rc;
    if ((rc = arg_i64(index, &i)))
        return rc;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return 1;
    }
    if (i < 0 || i + KL_RECORD_BATCH_OVERHEAD > (int64_t)view.len) {
        PyBuffer_Release(&view);
        return 1;
    }
    rc = v2_head_read((const unsigned char *)view.buf + i, v);
    PyBuffer_Release(&view);
    return rc;
}

static PyObject *
sp_batch_json(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t position;
    int crc_valid, rc;
    V2Head v;
    Buf line = {NULL, 0, 0}, prefix = {NULL, 0, 0};
    PyObject *a = NULL, *bobj = NULL, *res = NULL;

    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "batch_json takes 6 arguments");
        return NULL;
    }
    if ((rc = arg_i64(args[2], &position)) || (rc = v2_head_arg(args[0], args[1], &v))) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if ((crc_valid = PyObject_IsTrue(args[3])) < 0)
        return NULL;
    if ((rc = buf_str(&line, args[4])) || (rc = buf_str(&prefix, args[5])))
        goto done_rc;
    /* the batch object, in kdump.model's order */
    if (PUTS(&line, ",\"position\":") < 0 || buf_i64(&line, position) < 0 ||
        PUTS(&line, ",\"base_offset\":") < 0 || buf_i64(&line, v.base_offset) < 0 ||
        PUTS(&line, ",\"last_offset\":") < 0 || buf_i64(&line, v.last_offset) < 0 ||
        PUTS(&line, ",\"count\":") < 0 || buf_i64(&line, v.count) < 0 ||
        PUTS(&line, ",\"size\":") < 0 ||
        buf_i64(&line, (int64_t)KL_LOG_OVERHEAD + v.length) < 0 ||
        PUTS(&line, ",\"magic\":") < 0 || buf_i64(&line, v.magic) < 0 ||
        PUTS(&line, ",\"compression\":\"") < 0 || buf_codec(&line, v.codec) < 0 ||
        PUTS(&line, "\",\"timestamp_type\":") < 0 ||
        ((v.attributes & KL_V2_TIMESTAMP_TYPE_MASK) ? PUTS(&line, "\"LogAppendTime\"")
                                                    : PUTS(&line, "\"CreateTime\"")) < 0 ||
        PUTS(&line, ",\"max_timestamp\":") < 0 || buf_i64(&line, v.max_ts) < 0 ||
        PUTS(&line, ",\"crc\":") < 0 || buf_i64(&line, (int64_t)v.crc) < 0 ||
        PUTS(&line, ",\"crc_valid\":") < 0 || buf_bool(&line, crc_valid) < 0 ||
        PUTS(&line, ",\"first_timestamp\":") < 0 || buf_i64(&line, v.base_ts) < 0 ||
        PUTS(&line, ",\"partition_leader_epoch\":") < 0 || buf_i64(&line, v.ple) < 0 ||
        PUTS(&line, ",\"producer_id\":") < 0 || buf_i64(&line, v.producer_id) < 0 ||
        PUTS(&line, ",\"producer_epoch\":") < 0 || buf_i64(&line, v.producer_epoch) < 0 ||
        PUTS(&line, ",\"base_sequence\":") < 0 || buf_i64(&line, v.base_seq) < 0 ||
        PUTS(&line, ",\"last_sequence\":") < 0 || buf_i64(&line, v.last_seq) < 0 ||
        PUTS(&line, ",\"is_transactional\":") < 0 || buf_bool(&line, v.txn) < 0 ||
        PUTS(&line, ",\"is_control\":") < 0 || buf_bool(&line, v.control) < 0 ||
        PUTS(&line, ",\"delete_horizon_ms\":") < 0 ||
        ((v.attributes & KL_V2_DELETE_HORIZON_FLAG) ? buf_i64(&line, v.base_ts)
                                                    : PUTS(&line, "null")) < 0 ||
        PUTS(&line, ",\"attributes\":") < 0 || buf_i64(&line, v.attributes) < 0 ||
        PUTS(&line, "}\n") < 0)
        goto fail;
    /* the record prefix (kdump.render.jsonl.record_prefix) */
    if (buf_i64(&prefix, position) < 0 ||
        PUTS(&prefix, ",\"producer_id\":") < 0 || buf_i64(&prefix, v.producer_id) < 0 ||
        PUTS(&prefix, ",\"producer_epoch\":") < 0 || buf_i64(&prefix, v.producer_epoch) < 0 ||
        PUTS(&prefix, ",\"is_transactional\":") < 0 || buf_bool(&prefix, v.txn) < 0 ||
        PUTS(&prefix, ",\"is_control\":") < 0 || buf_bool(&prefix, v.control) < 0 ||
        PUTS(&prefix, ",\"offset\":") < 0)
        goto fail;
    a = PyUnicode_DecodeUTF8(line.p, line.len, "strict");
    if (a == NULL)
        goto fail;
    bobj = PyUnicode_DecodeUTF8(prefix.p, prefix.len, "strict");
    if (bobj == NULL)
        goto fail;
    res = PyTuple_Pack(2, a, bobj);
    goto fail; /* frees the buffers and the strings; res holds its own references */
done_rc:
    if (rc > 0) {
        PyMem_Free(line.p);
        PyMem_Free(prefix.p);
        Py_RETURN_NOTIMPLEMENTED;
    }
fail:
    PyMem_Free(line.p);
    PyMem_Free(prefix.p);
    Py_XDECREF(a);
    Py_XDECREF(bobj);
    return res;
}

/* ---------------------------------------------------------------------------------
 * text_batch_line(data, index, position, crc_valid) -> str | NotImplemented
 *
 * DumpLogSegments.printBatchLevel's line of the v2 batch header at data[index], newline
 * included (twin: kdump.render.text.batch_line).  NotImplemented as batch_json.
 * --------------------------------------------------------------------------------- */
static PyObject *
sp_text_batch_line(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t position;
    int crc_valid, rc;
    V2Head v;
    Buf line = {NULL, 0, 0};

    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "text_batch_line takes 4 arguments");
        return NULL;
    }
    if ((rc = arg_i64(args[2], &position)) || (rc = v2_head_arg(args[0], args[1], &v))) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if ((crc_valid = PyObject_IsTrue(args[3])) < 0)
        return NULL;
    if (PUTS(&line, "baseOffset: ") < 0 || buf_i64(&line, v.base_offset) < 0 ||
        PUTS(&line, " lastOffset: ") < 0 || buf_i64(&line, v.last_offset) < 0 ||
        PUTS(&line, " count: ") < 0 || buf_i64(&line, v.count) < 0 ||
        PUTS(&line, " baseSequence: ") < 0 || buf_i64(&line, v.base_seq) < 0 ||
        PUTS(&line, " lastSequence: ") < 0 || buf_i64(&line, v.last_seq) < 0 ||
        PUTS(&line, " producerId: ") < 0 || buf_i64(&line, v.producer_id) < 0 ||
        PUTS(&line, " producerEpoch: ") < 0 || buf_i64(&line, v.producer_epoch) < 0 ||
        PUTS(&line, " partitionLeaderEpoch: ") < 0 || buf_i64(&line, v.ple) < 0 ||
        PUTS(&line, " isTransactional: ") < 0 || buf_bool(&line, v.txn) < 0 ||
        PUTS(&line, " isControl: ") < 0 || buf_bool(&line, v.control) < 0 ||
        PUTS(&line, " deleteHorizonMs: ") < 0)
        goto fail;
    if (v.attributes & KL_V2_DELETE_HORIZON_FLAG) {
        if (PUTS(&line, "OptionalLong[") < 0 || buf_i64(&line, v.base_ts) < 0 ||
            PUTS(&line, "]") < 0)
            goto fail;
    }
    else if (PUTS(&line, "OptionalLong.empty") < 0)
        goto fail;
    if (PUTS(&line, " position: ") < 0 || buf_i64(&line, position) < 0 ||
        ((v.attributes & KL_V2_TIMESTAMP_TYPE_MASK) ? PUTS(&line, " LogAppendTime: ")
                                                    : PUTS(&line, " CreateTime: ")) < 0 ||
        buf_i64(&line, v.max_ts) < 0 ||
        PUTS(&line, " size: ") < 0 || buf_i64(&line, (int64_t)KL_LOG_OVERHEAD + v.length) < 0 ||
        PUTS(&line, " magic: ") < 0 || buf_i64(&line, v.magic) < 0 ||
        PUTS(&line, " compresscodec: ") < 0 || buf_codec(&line, v.codec) < 0 ||
        PUTS(&line, " crc: ") < 0 || buf_i64(&line, (int64_t)v.crc) < 0 ||
        PUTS(&line, " isvalid: ") < 0 || buf_bool(&line, crc_valid) < 0 ||
        PUTS(&line, "\n") < 0)
        goto fail;
    return buf_finish(&line);
fail:
    PyMem_Free(line.p);
    return NULL;
}

/* --------------------------------------------------------------------------------- */
/* ---------------------------------------------------------------------------------
 * record_columns(records) -> [offsets, timestamps, keys, values, headers, sequences]
 *                            | NotImplemented
 *
 * kdump export's per-record columns of a batch in one pass over its Record objects
 * (twin: kdump.ops.export.rows.record_columns_py, six attribute maps): each list holds
 * the records' attribute as it is (same objects).  Anything but a list of records with
 * plain slots leaves the work to the twin.
 * --------------------------------------------------------------------------------- */
static Layout columns_layout; /* Record: offset, timestamp, key, value, headers, sequence */
static const char *const COLUMN_FIELDS[] = {"offset", "timestamp", "key", "value", "headers",
                                            "sequence"};
#define N_COLUMN_FIELDS 6

static PyObject *
sp_record_columns(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *records, *out, *lists[N_COLUMN_FIELDS];
    Py_ssize_t i, n;
    int j;

    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "record_columns takes 1 argument");
        return NULL;
    }
    records = args[0];
    if (!PyList_CheckExact(records))
        Py_RETURN_NOTIMPLEMENTED;
    n = PyList_GET_SIZE(records);
    /* every record checked first: one of another class, or an unset slot, is the twin's */
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i);
        if (i > 0 && Py_TYPE(rec) != Py_TYPE(PyList_GET_ITEM(records, 0)))
            Py_RETURN_NOTIMPLEMENTED;
        if (layout_get(&columns_layout, (PyObject *)Py_TYPE(rec), COLUMN_FIELDS,
                       N_COLUMN_FIELDS) < 0) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        for (j = 0; j < N_COLUMN_FIELDS; j++)
            if (*(PyObject **)((char *)rec + columns_layout.off[j]) == NULL)
                Py_RETURN_NOTIMPLEMENTED;
    }
    for (j = 0; j < N_COLUMN_FIELDS; j++)
        lists[j] = NULL;
    for (j = 0; j < N_COLUMN_FIELDS; j++) {
        lists[j] = PyList_New(n);
        if (lists[j] == NULL)
            goto fail;
    }
    for (i = 0; i < n; i++) {
        PyObject *rec = PyList_GET_ITEM(records, i);
        /* one class, the one checked above (no Python code runs in between) */
        for (j = 0; j < N_COLUMN_FIELDS; j++) {
            PyObject *v = *(PyObject **)((char *)rec + columns_layout.off[j]);
            Py_INCREF(v);
            PyList_SET_ITEM(lists[j], i, v);
        }
    }
    out = PyList_New(N_COLUMN_FIELDS);
    if (out == NULL)
        goto fail;
    for (j = 0; j < N_COLUMN_FIELDS; j++)
        PyList_SET_ITEM(out, j, lists[j]);
    return out;
fail:
    for (j = 0; j < N_COLUMN_FIELDS; j++)
        Py_XDECREF(lists[j]);
    return NULL;
}

/* ---------------------------------------------------------------------------------
 * packed_v2_records(buf, pos, end, count, headers_max, base_offset, base_timestamp,
 *                   append_time, base_sequence)
 *   -> (parts, n, fault | None, position) | NotImplemented
 *
 * kdump export's columns of a v2 batch's records straight from their bytes, with no
 * Record objects (twin: kdump.records.v2.packed_v2_records_py, which decodes the
 * records and packs them).  ``parts`` is the twelve bytes objects of
 * kdump.records.packed (PACKED_PARTS): offsets and timestamps (int64), key lengths,
 * keys, value lengths, values, header counts, header key lengths, header keys, header
 * value lengths, header values, sequences (int32; a length of -1 is a null), in the
 * machine's byte order.  The records walked before a fault are packed, as
 * decode_v2_records returns them.  Header keys are text: bytes that are not UTF-8
 * are written with U+FFFD, as bytes.decode("utf-8", "replace") reads them.
 * --------------------------------------------------------------------------------- */
static inline int
buf_i32(Buf *b, int64_t v)
{
    int32_t w = (int32_t)v;
    return buf_put(b, (const char *)&w, (Py_ssize_t)sizeof w);
}

static inline int
buf_q(Buf *b, int64_t v)
{
    return buf_put(b, (const char *)&v, (Py_ssize_t)sizeof v);
}

enum {
    P_OFFSETS, P_TIMESTAMPS, P_KEY_LENS, P_KEYS, P_VALUE_LENS, P_VALUES, P_HEADER_COUNTS,
    P_HKEY_LENS, P_HKEYS, P_HVALUE_LENS, P_HVALUES, P_SEQUENCES, N_PARTS
};

typedef struct {
    Buf b[N_PARTS];
    int64_t base_offset, base_ts, base_seq;
    int append;
    int64_t append_ts;
} PackCtx;

static int
pack_cb(void *ctx, const unsigned char *buf, const RawRecord *r)
{
    PackCtx *c = (PackCtx *)ctx;
    Buf *b = c->b;
    int64_t offset, ts, sequence, pos = r->headers_at, h;
    uint64_t u = 0;

    /* DefaultRecord.readFrom: ``baseOffset + offsetDelta`` and ``baseTimestamp +
     * timestampDelta`` in Java longs, which wrap (kdump.records.packed.wrap64) */
    offset = (int64_t)((uint64_t)c->base_offset + (uint64_t)r->offset_delta);
    ts = c->append ? c->append_ts : (int64_t)((uint64_t)c->base_ts + (uint64_t)r->ts_delta);
    sequence = record_sequence(c->base_seq, r->offset_delta);
    if (buf_q(&b[P_OFFSETS], offset) < 0 || buf_q(&b[P_TIMESTAMPS], ts) < 0 ||
        buf_i32(&b[P_SEQUENCES], sequence) < 0 ||
        /* any negative length is a null (DefaultRecord.readFrom) */
        buf_i32(&b[P_KEY_LENS], r->klen < 0 ? -1 : r->klen) < 0 ||
        buf_i32(&b[P_VALUE_LENS], r->vlen < 0 ? -1 : r->vlen) < 0 ||
        buf_i32(&b[P_HEADER_COUNTS], r->nh) < 0)
        return -1;
    if (r->klen > 0 && buf_put(&b[P_KEYS], (const char *)buf + r->key_at, r->klen) < 0)
        return -1;
    if (r->vlen > 0 && buf_put(&b[P_VALUES], (const char *)buf + r->value_at, r->vlen) < 0)
        return -1;
    for (h = 0; h < r->nh; h++) {
        int64_t hk, hv;
        Py_ssize_t before = b[P_HKEYS].len;
        rd_uvarint(buf, &pos, r->limit, 5, &u);
        hk = zz(u);
        /* a header key is text: as bytes.decode("utf-8", "replace") reads it */
        if (buf_utf8_replace(&b[P_HKEYS], (const char *)buf + pos, (Py_ssize_t)hk) < 0 ||
            buf_i32(&b[P_HKEY_LENS], b[P_HKEYS].len - before) < 0)
            return -1;
        pos += hk;
        rd_uvarint(buf, &pos, r->limit, 5, &u);
        hv = zz(u);
        if (buf_i32(&b[P_HVALUE_LENS], hv < 0 ? -1 : hv) < 0)
            return -1;
        if (hv > 0) {
            if (buf_put(&b[P_HVALUES], (const char *)buf + pos, hv) < 0)
                return -1;
            pos += hv;
        }
    }
    return 0;
}

static PyObject *
sp_packed_v2_records(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t pos, end, count, headers_max, stop, n;
    PackCtx c;
    Fault f;
    PyObject *parts = NULL, *fault = NULL, *res = NULL;
    int rc, j;

    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "packed_v2_records takes 9 arguments");
        return NULL;
    }
    if (!PyBytes_CheckExact(args[0]))
        Py_RETURN_NOTIMPLEMENTED;
    memset(&c, 0, sizeof c);
    if ((rc = arg_i64(args[1], &pos)) || (rc = arg_i64(args[2], &end)) ||
        (rc = arg_i64(args[3], &count)) || (rc = arg_i64(args[4], &headers_max)) ||
        (rc = arg_i64(args[5], &c.base_offset)) || (rc = arg_i64(args[6], &c.base_ts)) ||
        (rc = arg_i64(args[8], &c.base_seq))) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (args[7] != Py_None) {
        if ((rc = arg_i64(args[7], &c.append_ts))) {
            if (rc < 0)
                return NULL;
            Py_RETURN_NOTIMPLEMENTED;
        }
        c.append = 1;
    }
    if (c.base_seq > KL_INT32_MAX || c.base_seq < -KL_INT32_MAX - 1 || count > (1LL << 62))
        Py_RETURN_NOTIMPLEMENTED;
    if (pos < 0 || end > (int64_t)PyBytes_GET_SIZE(args[0]) || pos > end)
        Py_RETURN_NOTIMPLEMENTED;
    rc = walk_v2((const unsigned char *)PyBytes_AS_STRING(args[0]), pos, end, 0, count, count,
                 headers_max, headers_max, pack_cb, &c, &f, &stop);
    if (rc < 0)
        goto done;
    n = (int64_t)(c.b[P_OFFSETS].len / 8);
    if (rc == 0) {
        fault = Py_None;
        Py_INCREF(fault);
    }
    else if ((fault = fault_tuple(&f)) == NULL)
        goto done;
    parts = PyTuple_New(N_PARTS);
    if (parts == NULL)
        goto done;
    for (j = 0; j < N_PARTS; j++) {
        PyObject *part = PyBytes_FromStringAndSize(c.b[j].p ? c.b[j].p : "",
                                                   (Py_ssize_t)c.b[j].len);
        if (part == NULL)
            goto done;
        PyTuple_SET_ITEM(parts, j, part);
    }
    res = Py_BuildValue("(OLOL)", parts, (long long)n, fault, (long long)stop);
done:
    Py_XDECREF(parts);
    Py_XDECREF(fault);
    for (j = 0; j < N_PARTS; j++)
        PyMem_Free(c.b[j].p);
    return res;
}

/* ---------------------------------------------------------------------------------
 * lengths_offsets(lengths) -> (offsets, validity | None, null_count) | NotImplemented
 *
 * Arrow's buffers of a variable-size column from packed int32 lengths (-1: null): the
 * int32 offsets (one more than the lengths, from 0) and the validity bitmap (None
 * without a null).  Twin: kdump.records.packed.lengths_offsets_py.  Offsets past
 * 2^31 - 1 are NotImplemented (the twin raises OverflowError).
 * --------------------------------------------------------------------------------- */
static PyObject *
sp_lengths_offsets(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t n, i;
    int32_t *offs;
    unsigned char *bits = NULL;
    PyObject *offsets = NULL, *validity = NULL, *res = NULL;
    int64_t total = 0, nulls = 0;

    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "lengths_offsets takes 1 argument");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len % 4) {
        PyBuffer_Release(&view);
        Py_RETURN_NOTIMPLEMENTED;
    }
    n = view.len / 4;
    for (i = 0; i < n; i++) {
        int32_t l;
        memcpy(&l, (const char *)view.buf + 4 * i, 4);
        if (l < 0)
            nulls++;
        else
            total += l;
    }
    if (total > KL_INT32_MAX) {
        PyBuffer_Release(&view);
        Py_RETURN_NOTIMPLEMENTED;
    }
    offsets = PyBytes_FromStringAndSize(NULL, (n + 1) * 4);
    if (offsets == NULL)
        goto done;
    if (nulls) {
        validity = PyBytes_FromStringAndSize(NULL, (n + 7) / 8);
        if (validity == NULL)
            goto done;
        bits = (unsigned char *)PyBytes_AS_STRING(validity);
        memset(bits, 0, (size_t)((n + 7) / 8));
    }
    offs = (int32_t *)PyBytes_AS_STRING(offsets);
    total = 0;
    offs[0] = 0;
    for (i = 0; i < n; i++) {
        int32_t l;
        memcpy(&l, (const char *)view.buf + 4 * i, 4);
        if (l >= 0) {
            total += l;
            if (bits)
                bits[i >> 3] |= (unsigned char)(1u << (i & 7));
        }
        offs[i + 1] = (int32_t)total;
    }
    res = Py_BuildValue("(OOL)", offsets, validity ? validity : Py_None, (long long)nulls);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(offsets);
    Py_XDECREF(validity);
    return res;
}

static PyMethodDef methods[] = {
    {"scan_v2_records", (PyCFunction)(void (*)(void))sp_scan_v2_records, METH_FASTCALL,
     "scan_v2_records(buf, start, end, count, max_headers, RecordScan): record statistics of a v2 "
     "records area (see kdump.records.scan)."},
    {"decode_v2_records", (PyCFunction)(void (*)(void))sp_decode_v2_records, METH_FASTCALL,
     "decode_v2_records(buf, pos, end, record, count, want, headers_left, headers_max, "
     "base_offset, base_timestamp, append_time, base_sequence, shift, compressed, Record): "
     "(records, fault, position)."},
    {"record_events", (PyCFunction)(void (*)(void))sp_record_events, METH_FASTCALL,
     "record_events(records, RecordEvent, Decoded | None): one event per record."},
    {"crc32c", (PyCFunction)(void (*)(void))sp_crc32c, METH_FASTCALL,
     "crc32c(data, start=0, end=len(data)): CRC-32C (Castagnoli) of data[start:end]."},
    {"crc32", (PyCFunction)(void (*)(void))sp_crc32, METH_FASTCALL,
     "crc32(data, start=0, end=len(data)): CRC-32 (zlib's) of data[start:end]."},
    {"verify_run", (PyCFunction)(void (*)(void))sp_verify_run, METH_FASTCALL,
     "verify_run(data, start, stop, prev_last, segment_base, deep, max_headers, max_batch_bytes, "
     "decompress): consume the batches from data[start] verify-crc reports nothing about "
     "(see kdump.ops.verify)."},
    {"text_record_lines", (PyCFunction)(void (*)(void))sp_text_record_lines, METH_FASTCALL,
     "text_record_lines(events, timestamp_type, skip_metadata, print_contents, RecordEvent, "
     "Record, Decoded): DumpLogSegments' record lines of a v2 batch."},
    {"json_record_lines", (PyCFunction)(void (*)(void))sp_json_record_lines, METH_FASTCALL,
     "json_record_lines(events, prefix, timestamp_type_json, encoding, RecordEvent, Record, "
     "Decoded): the JSON Lines record objects of a v2 batch."},
    {"record_offsets", (PyCFunction)(void (*)(void))sp_record_offsets, METH_FASTCALL,
     "record_offsets(records, last_offset): (last offset, [(after, next) ...])."},
    {"number_key_indices", (PyCFunction)(void (*)(void))sp_number_key_indices, METH_FASTCALL,
     "number_key_indices(records): indices of the records whose key is a number key."},
    {"size_run", (PyCFunction)(void (*)(void))sp_size_run, METH_FASTCALL,
     "size_run(data, start, stop, end, check_next, max_headers, max_batch_bytes, decompress, "
     "producer_ids, deep): size-report's accounting of the intact v2 batches from data[start]."},
    {"batch_json", (PyCFunction)(void (*)(void))sp_batch_json, METH_FASTCALL,
     "batch_json(data, index, position, crc_valid, batch_head, record_head): dump's batch "
     "line and record prefix of a v2 batch."},
    {"text_batch_line", (PyCFunction)(void (*)(void))sp_text_batch_line, METH_FASTCALL,
     "text_batch_line(data, index, position, crc_valid): DumpLogSegments' line of a v2 "
     "batch."},
    {"record_columns", (PyCFunction)(void (*)(void))sp_record_columns, METH_FASTCALL,
     "record_columns(records): kdump export's six per-record columns of a batch."},
    {"packed_v2_records", (PyCFunction)(void (*)(void))sp_packed_v2_records, METH_FASTCALL,
     "packed_v2_records(buf, pos, end, count, headers_max, base_offset, base_timestamp, "
     "append_time, base_sequence): (parts, n, fault, position), kdump export's columns of a "
     "v2 batch's records."},
    {"lengths_offsets", (PyCFunction)(void (*)(void))sp_lengths_offsets, METH_FASTCALL,
     "lengths_offsets(lengths): (offsets, validity | None, null_count) of packed int32 "
     "lengths."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "kdump._speedups",
    "Native versions of kdump's hottest loops; each has a pure-Python twin.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    crc_init();
    crc32_init();
    return PyModule_Create(&module);
}
