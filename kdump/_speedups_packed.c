/*
 * kdump._speedups, kdump export's columns: record_columns (from Record objects),
 * packed_v2_records (straight from a batch's bytes into packed column buffers) and
 * lengths_offsets (Arrow offsets and validity of packed lengths).
 *
 * Each entry point's pure-Python twin is named in _speedups.c's table; shared
 * declarations are in _speedups.h.
 */
#include "_speedups.h"

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

PyObject *
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

PyObject *
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
PyObject *
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

