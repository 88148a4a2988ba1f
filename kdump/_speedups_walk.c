/*
 * kdump._speedups, the v2 record walker (the one place C reads DefaultRecord bytes) and
 * the entry points that run on it: scan_v2_records, decode_v2_records; and the per-
 * record entry points over Record objects: record_events, record_offsets,
 * number_key_indices.
 *
 * Size: about 800 lines, as it is one family: the walker and the five entry points
 * that read records with it or hand Record objects on (a split would put the walker
 * and its callbacks apart).
 *
 * Each entry point's pure-Python twin is named in _speedups.c's table; shared
 * declarations are in _speedups.h.
 */
#include "_speedups.h"

/* ---------------------------------------------------------------------------------
 * The C v2 record walker: the one place C reads DefaultRecord bytes.
 *
 * walk_record checks one record exactly as kdump.records.walk.walk_v2 does (its Python
 * twin), walk_v2 walks the records of a batch and checks the records count; a fault
 * is (code, record, at, a, b) with the codes of kdump/records/faults.py, which holds
 * the one message table.  Decoding (decode_v2_records), scanning (scan_v2_records)
 * and export's packed columns (packed_v2_records, _speedups_packed.c) all run on
 * walk_v2, with a callback per record.  (verify_run, _speedups_runs.c, has its own
 * walk, which only says whether a batch's records are faultless.)
 * --------------------------------------------------------------------------------- */
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

int
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

PyObject *
fault_tuple(const Fault *f)
{
    return Py_BuildValue("(iLLLL)", f->code, (long long)f->record, (long long)f->at,
                         (long long)f->a, (long long)f->b);
}

/* ---------------------------------------------------------------------------------
 * Statistics of the records walked (scan_v2_records and size_run)
 * --------------------------------------------------------------------------------- */
int
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

void
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

PyObject *
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
    uint64_t u = 0;
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

PyObject *
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

PyObject *
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

PyObject *
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

PyObject *
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

