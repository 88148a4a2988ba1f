/*
 * kdump._speedups, dump's writers: the text (DumpLogSegments) and JSON Lines record
 * lines of a v2 batch (text_record_lines, json_record_lines) and its batch line
 * (text_batch_line, batch_json), into a growing buffer (Buf).
 *
 * Size: about 830 lines, as it is one family: text and JSON share the buffer, the
 * UTF-8 and escaping helpers and the slot layouts of RecordEvent/Record/Decoded.
 *
 * Each entry point's pure-Python twin is named in _speedups.c's table; shared
 * declarations are in _speedups.h.
 */
#include "_speedups.h"

/* ---------------------------------------------------------------------------------
 * Rendering record lines: text (DumpLogSegments) and JSON Lines
 *
 * Helpers return 0 on success, -1 with a Python exception, 1 for "not handled here"
 * (the caller then returns NotImplemented and Python renders the batch).
 * --------------------------------------------------------------------------------- */
int
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
int
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
int
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

/* A JSON string of valid UTF-8 text, escaped as kdump.render.jsonl.json_text does:
 * json's encode_basestring with ensure_ascii=False (backslash, quote and control
 * characters), then the C1 and bidirectional-text controls as \\uXXXX. */
int
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
PyObject *
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
 *                   Decoded, crc_valid) -> str | NotImplemented
 * kdump.render.jsonl.record_object of each event of a v2 batch, as JsonRenderer writes
 * it (compact, ensure_ascii=False, one object per line), for events whose payloads are
 * written raw: no decoded structure, no decode error, no control record.  ``prefix``
 * holds everything up to the offset value; ``crc_valid``, the batch's CRC-32C verdict,
 * is every record's. */
PyObject *
sp_json_record_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *events, *prefix, *tt;
    int enc, crc_valid, rc = 0;
    Py_ssize_t i, n;
    Buf b = {NULL, 0, 0};

    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "json_record_lines takes 8 arguments");
        return NULL;
    }
    if ((crc_valid = PyObject_IsTrue(args[7])) < 0)
        return NULL;
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
        TRY(crc_valid ? PUTS(&b, ",\"crc_valid\":true,\"size\":")
                      : PUTS(&b, ",\"crc_valid\":false,\"size\":"));
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

PyObject *
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
PyObject *
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

