/*
 * kdump._speedups, runs of whole batches over a buffer of a log, without the GIL:
 * verify-crc's walk (verify_run), size-report's accounting (size_run) and the header
 * walk's runs of batches that change nothing (header_run: kdump timeline).
 *
 * Size: about 800 lines, as it is one family: the walks over runs of whole batches,
 * sharing the batch checks.  The file reads that feed verify_run's walk without Python
 * between stretches (issue 49) are in _speedups_reads.c.
 *
 * Each entry point's pure-Python twin is named in _speedups.c's table; shared
 * declarations are in _speedups.h.
 */
#include "_speedups.h"

/* ---------------------------------------------------------------------------------
 * verify_run(data, start, stop, prev_last, segment_base, deep, max_headers,
 *            max_batch_bytes, decompress[, soft_stop, chunk, read_ahead][, gaps])
 *   -> (position, batches, records, last offset | None)
 *
 * ``data`` a buffer, or (issue 49) a file descriptor, which the walk reads itself
 * (``start`` and ``stop`` then positions in the file; see verify_file below: ``chunk``
 * bytes a read, a thread reading ahead with ``read_ahead``); with ``soft_stop`` (None:
 * ``stop``) no batch starting at or after it is consumed.
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
 * With ``gaps`` true (a delete-policy topic: kdump.ops.verdict), the walk also stops
 * before a v2 batch, or an uncompressed v0/v1 message, whose first offset is not the
 * one after the previous batch's last (or, first of a segment, not ``segment_base``):
 * Python records the gap (offsets no batch holds) and goes on.
 *
 * The walk runs without the GIL (taken back for ``decompress`` only).
 * --------------------------------------------------------------------------------- */
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
        if (__builtin_expect(pos < (lim_), 1) && buf[pos] < 0x80)                           \
            u_ = buf[pos++]; /* the last byte of a record too (its header count) */        \
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
    int64_t rec, n = 0, first_delta = -1, last_delta = -1, max_ts = 0;
    int ascending = 1;
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
        pos = limit; /* the next record's start hangs on this one's length only */
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
        if (n == 0) {
            first_delta = od;
            max_ts = ts;
        }
        else {
            if (od <= last_delta)
                ascending = 0;
            if (ts > max_ts)
                max_ts = ts;
        }
        last_delta = od;
        n += 1;
    }
    s->n = n;
    s->ascending = ascending;
    s->first_delta = first_delta;
    s->last_delta = last_delta;
    s->max_ts = max_ts;
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

/* The walk proper (see verify_run above): from p->pos while a whole batch lies before
 * ``stop`` and starts before ``soft``; ``d`` holds the bytes from position ``origin``.
 * Returns -1 on a Python error, 0 otherwise; *p holds what was consumed.  Called
 * without the GIL (*ts; taken back for ``decompress`` only). */
int
verify_walk(const unsigned char *d, int64_t origin, int64_t stop, int64_t soft, int have_prev,
            int64_t prev_last, int have_base, int64_t segment_base, int deep, int checked,
            int gaps, int64_t headers_max, int64_t max_batch_bytes, PyObject *decompress,
            PyThreadState **ts, VProgress *p)
{
    int64_t pos = p->pos;
    int rc;
    while (pos < soft && stop - pos >= KL_HEADER_SIZE_UP_TO_MAGIC) {
        const unsigned char *b = d + (pos - origin);
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
            if (gaps && (have_prev ? offset - 1 > prev_last : (have_base && offset > segment_base)))
                break;
            stored = (uint32_t)be32(b + KL_V2_CRC_OFFSET);
            if (!checked && crc32c_impl(0, b + KL_V2_ATTRIBUTES_OFFSET,
                                        (size_t)(total - KL_V2_ATTRIBUTES_OFFSET)) != stored)
                break;
            if (deep) {
                int codec = b[KL_V2_ATTRIBUTES_OFFSET + 1] & KL_V2_COMPRESSION_MASK;
                if (codec) /* decompress is Python's: with the GIL */
                    PyEval_RestoreThread(*ts);
                rc = verify_v2_records(b, total, headers_max, max_batch_bytes,
                                       codec ? decompress : Py_None, &n);
                if (codec)
                    *ts = PyEval_SaveThread();
                if (rc < 0)
                    return -1;
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
            if (gaps && !(b[KL_LEGACY_ATTRIBUTES_OFFSET] & KL_LEGACY_COMPRESSION_MASK) &&
                (have_prev ? offset - 1 > prev_last : (have_base && offset > segment_base)))
                break;
            stored = (uint32_t)be32(b + KL_LEGACY_CRC_OFFSET);
            if (!checked && crc32_ieee(b + KL_MAGIC_OFFSET, (size_t)(total - KL_MAGIC_OFFSET)) !=
                                stored)
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
        have_prev = 1;
        prev_last = last_offset;
        pos += total;
        p->records += n;
        p->last = last_offset;
        p->batches += 1;
        p->pos = pos;
    }
    return 0;
}

PyObject *
sp_verify_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    int64_t start, stop, soft = -1, prev_last = 0, segment_base = 0, headers_max, max_batch_bytes;
    int64_t chunk = (int64_t)1 << 20;
    int have_prev, have_base, deep, rc, failed, read_ahead = 0, gaps = 0;
    PyObject *decompress;
    PyThreadState *ts;
    VProgress progress;

    if (nargs < 9 || nargs > 13 || nargs == 11) {
        PyErr_SetString(PyExc_TypeError, "verify_run takes 9, 10, 12 or 13 arguments");
        return NULL;
    }
    if ((nargs == 10 || nargs == 13) && (gaps = PyObject_IsTrue(args[nargs - 1])) < 0)
        return NULL;
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
    if (nargs >= 12) {
        if (args[9] != Py_None && (rc = arg_i64(args[9], &soft)))
            goto declined_rc;
        if ((rc = arg_i64(args[10], &chunk)))
            goto declined_rc;
        if ((read_ahead = PyObject_IsTrue(args[11])) < 0)
            return NULL;
    }
    if (max_batch_bytes < 0 || max_batch_bytes > ((int64_t)1 << 40))
        goto declined;
    progress.pos = start;
    progress.batches = progress.records = progress.last = 0;
    if (PyLong_Check(args[0])) { /* file mode: a file descriptor, positions in the file */
        int64_t fd;
        if ((rc = arg_i64(args[0], &fd)))
            goto declined_rc;
        if (fd < 0 || fd > INT32_MAX || start < 0 || chunk < KL_RECORD_BATCH_OVERHEAD ||
            chunk > ((int64_t)1 << 30))
            goto declined;
        if (soft < 0 || soft > stop)
            soft = stop;
        ts = PyEval_SaveThread();
        failed = verify_file((int)fd, stop, soft, have_prev, prev_last, have_base, segment_base,
                             deep, gaps, headers_max, max_batch_bytes, decompress, chunk,
                             read_ahead, &ts, &progress) < 0;
        PyEval_RestoreThread(ts);
    }
    else {
        if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
            return NULL;
        if (start < 0 || stop > (int64_t)view.len)
            stop = -1; /* nothing done */
        if (soft < 0 || soft > stop)
            soft = stop;
        ts = PyEval_SaveThread();
        failed = verify_walk((const unsigned char *)view.buf, 0, stop, soft, have_prev, prev_last,
                             have_base, segment_base, deep, 0, gaps, headers_max, max_batch_bytes,
                             decompress, &ts, &progress) < 0;
        PyEval_RestoreThread(ts);
        PyBuffer_Release(&view);
    }
    if (failed)
        return NULL;
    if (progress.batches == 0)
        return Py_BuildValue("(LiiO)", (long long)start, 0, 0, Py_None);
    return Py_BuildValue("(LLLL)", (long long)progress.pos, (long long)progress.batches,
                         (long long)progress.records, (long long)progress.last);
declined_rc:
    if (rc < 0)
        return NULL;
declined:
    return Py_BuildValue("(LiiO)", (long long)0, 0, 0, Py_None);
}
/* ---------------------------------------------------------------------------------
 * size_run(data, start, stop, end, check_next, max_headers, max_batch_bytes,
 *          decompress, producer_ids, deep[, gaps])
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
 * ``end``: may lie past the buffer) unless its CRC-32C matches, and, ``deep``, a batch
 * whose CRC-32C fails (size-report counts its records apart).  ``totals``: records,
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

PyObject *
sp_size_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    const unsigned char *d;
    int64_t start, stop, end, headers_max, max_batch_bytes, pos, batches = 0, last = 0;
    int check_next, deep, rc, failed = 0, i, gaps = 0;
    PyObject *decompress, *producer_ids, *codecs = NULL, *res;
    SizeAcc a;

    if (nargs != 10 && nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "size_run takes 10 or 11 arguments");
        return NULL;
    }
    if (nargs == 11 && (gaps = PyObject_IsTrue(args[10])) < 0)
        return NULL;
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
        if (gaps && batches && offset - 1 != last)
            break; /* not contiguous: a run's first offset is then its lowest */
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
            if (!ok && crc32c_impl(0, b + KL_V2_ATTRIBUTES_OFFSET,
                                   (size_t)(total - KL_V2_ATTRIBUTES_OFFSET)) !=
                           (uint32_t)be32(b + KL_V2_CRC_OFFSET))
                break;
        }
        /* deep: a batch whose CRC-32C fails is Python's (its records counted apart) */
        if (deep && crc32c_impl(0, b + KL_V2_ATTRIBUTES_OFFSET,
                                (size_t)(total - KL_V2_ATTRIBUTES_OFFSET)) !=
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
 * header_run(fd, size, buf, buf_at, pos, last_size, prev_last, attributes, epoch,
 *            producer_id, producer_epoch, until, max_batch_bytes)
 *   -> (pos, buf, buf_at, last_size, batches, last offset, max timestamp,
 *       last timestamp, bytes read, furthest position read)
 *
 * The header walk's run (twin: kdump.ops.compare_replicas.header_run.header_run_py):
 * from ``pos`` in the file ``fd`` (``size`` bytes), reading as HeaderWalk reads (the
 * 61 header bytes wanted not in ``buf``, the window at ``buf_at``: a 256 KiB window
 * after a batch under 4 KiB, else 61 bytes), the v2 batches HeaderWalk frames whose
 * first offset follows the last one's, with ``attributes``' timestamp type,
 * transactional and control bits (no control batch), ``epoch``, ``producer_id`` and
 * ``producer_epoch``, whose last offset is below ``until``, are consumed.  A read
 * error ends the run (the Python reader reads again and reports it).  Without the GIL.
 * --------------------------------------------------------------------------------- */
#define HR_SMALL_BATCH 4096
#define HR_WINDOW (256 << 10)
#define HR_KEEP 0x38 /* timestamp type, transactional, control */

PyObject *
sp_header_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t fd, size, buf_at, pos, last_size, prev_last, keep, epoch, pid, pe, until, mbb;
    int64_t batches = 0, max_ts = -1, last_ts = -1, nread = 0, furthest = 0, limit;
    const unsigned char *cur;
    int64_t cur_len, cur_at;
    unsigned char *win = NULL;
    int own = 0, rc;
    Py_buffer view;
    PyObject *out_buf, *result;
    PyThreadState *ts;

    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "header_run takes 13 arguments");
        return NULL;
    }
    if ((rc = arg_i64(args[0], &fd)) || (rc = arg_i64(args[1], &size)) ||
        (rc = arg_i64(args[3], &buf_at)) || (rc = arg_i64(args[4], &pos)) ||
        (rc = arg_i64(args[5], &last_size)) || (rc = arg_i64(args[6], &prev_last)) ||
        (rc = arg_i64(args[7], &keep)) || (rc = arg_i64(args[8], &epoch)) ||
        (rc = arg_i64(args[9], &pid)) || (rc = arg_i64(args[10], &pe)) ||
        (rc = arg_i64(args[11], &until)) || (rc = arg_i64(args[12], &mbb)))
        goto declined_rc;
    if (fd < 0 || fd > INT32_MAX || mbb < 0 || mbb > ((int64_t)1 << 40) || size < 0 ||
        !PyBytes_Check(args[2]) || (keep & 0x20) || prev_last == INT64_MAX)
        goto declined;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    cur = (const unsigned char *)view.buf;
    cur_len = (int64_t)view.len;
    cur_at = buf_at;
    limit = mbb + KL_RECORD_BATCH_OVERHEAD;
    keep &= HR_KEEP;
    ts = PyEval_SaveThread();
    while (pos < size) {
        int64_t remaining = size - pos, need, i, base, total, delta, last, mt;
        int32_t length, count;
        int16_t attrs;
        const unsigned char *h;
        need = remaining < KL_RECORD_BATCH_OVERHEAD ? remaining : KL_RECORD_BATCH_OVERHEAD;
        if (!(cur_at <= pos && pos + need <= cur_at + cur_len)) {
            int64_t n = last_size < HR_SMALL_BATCH ? HR_WINDOW : KL_RECORD_BATCH_OVERHEAD, got;
            if (n < need)
                n = need;
            if (n > remaining)
                n = remaining;
            if (win == NULL && (win = malloc(HR_WINDOW)) == NULL)
                break;
            got = pread_full((int)fd, win, n, pos);
            if (got < n)
                break; /* a short read (an error, a shrunk file): Python reads again */
            cur = win;
            cur_len = got;
            cur_at = pos;
            own = 1;
            nread += got;
            furthest = pos + got;
        }
        i = pos - cur_at;
        if (cur_len - i < KL_RECORD_BATCH_OVERHEAD)
            break;
        h = cur + i;
        base = be64(h);
        length = be32(h + 8);
        total = 12 + (int64_t)length;
        attrs = be16(h + 21);
        delta = be32(h + 23);
        mt = be64(h + 35);
        count = be32(h + 57);
        if (base < 0 || h[16] != 2 || total > remaining || total > limit ||
            length < KL_RECORD_BATCH_OVERHEAD - 12 || (attrs & ~0x7F) || (attrs & 7) > 4 ||
            delta < 0 || count < 0 || base != prev_last + 1 || (attrs & HR_KEEP) != keep ||
            be32(h + 12) != epoch || be64(h + 43) != pid || be16(h + 51) != pe)
            break;
        if (base > INT64_MAX - delta)
            break;
        last = base + delta;
        if (last >= until)
            break;
        batches += 1;
        prev_last = last;
        if (mt >= 0) {
            last_ts = mt;
            if (mt > max_ts)
                max_ts = mt;
        }
        last_size = total;
        pos += total;
    }
    PyEval_RestoreThread(ts);
    if (own)
        out_buf = PyBytes_FromStringAndSize((const char *)cur, (Py_ssize_t)cur_len);
    else {
        out_buf = args[2];
        Py_INCREF(out_buf);
    }
    PyBuffer_Release(&view);
    free(win);
    if (out_buf == NULL)
        return NULL;
    result = Py_BuildValue("(LNLLLLLLLL)", (long long)pos, out_buf, (long long)cur_at,
                           (long long)last_size, (long long)batches, (long long)prev_last,
                           (long long)max_ts, (long long)last_ts, (long long)nread,
                           (long long)furthest);
    return result;
declined_rc:
    if (rc < 0)
        return NULL;
declined: /* nothing consumed, nothing read */
    return Py_BuildValue("(OOOOiOiiii)", args[4], args[2], args[3], args[5], 0, args[6], -1, -1,
                         0, 0);
}
