/*
 * kdump._speedups: native versions of kdump's hottest loops.
 *
 * Every function here has a pure-Python twin that is the reference (the twin's
 * module names it); tests/native/test_speedups.py proves both give identical results on
 * every fixture, damaged ones included.  A function returns NotImplemented for input
 * outside the domain it handles (a buffer that is not ``bytes``, a number that does
 * not fit 64 bits ...), and the Python caller then runs the twin.
 *
 * The entry points by family (file), each with its twin:
 *
 *  _speedups_walk.c: the v2 record walker
 *   scan_v2_records     kdump.records.scan.scan_v2_records_py
 *   decode_v2_records   kdump.records.v2.decode_records_py
 *   record_events       kdump.ops.dump._record_events_py (RecordEvent + the string/string
 *                       decoder)
 *   record_offsets      kdump.ops.dump.record_offsets_py
 *   number_key_indices  kdump.decoders.simple.number_key_indices_py
 *  _speedups_crc.c: checksums
 *   crc32c              the crc32c package's crc32c
 *   crc32               zlib.crc32
 *  _speedups_writers.c: dump's text and JSON Lines writers
 *   text_record_lines   kdump.render.text.record_lines
 *   json_record_lines   kdump.render.jsonl.record_object + JsonRenderer
 *   batch_json          kdump.render.jsonl.batch_object + record_prefix
 *   text_batch_line     kdump.render.text.batch_line
 *  _speedups_runs.c: runs of whole batches
 *   verify_run          kdump.ops.verify.verify_log, for batches it reports nothing about
 *   size_run            kdump.ops.size_run.size_run_py
 *   header_run          kdump.ops.compare_replicas.header_run.header_run_py
 *  _speedups_packed.c: kdump export's columns
 *   record_columns      kdump.ops.export.rows.record_columns_py
 *   packed_v2_records   kdump.records.v2.packed_v2_records_py
 *   lengths_offsets     kdump.records.packed.lengths_offsets_py
 *  _speedups_timeline.c: kdump timeline
 *   partition_event     kdump.ops.timeline.metadata.partition_event_py
 *   event_json          kdump.render.timeline.event_json_py
 *   metadata_changes    kdump.ops.timeline.metadata.MetadataStream's on_event
 *
 * This file is the module: the method table (KD_METHOD binds each name to its C
 * function, sp_<name>, declared in _speedups.h), the init, and the helpers every
 * family uses.
 *
 * Objects of kdump's own __slots__ classes (Record, RecordScan, RecordEvent, Decoded)
 * are made here without running their __init__: the class is passed in, its slot
 * offsets are read from its member descriptors once, and the slots are filled
 * directly.  Every slot is filled, exactly as the Python constructor would.
 */
#include "_speedups.h"

/* ---------------------------------------------------------------------------------
 * Slot layouts of Python classes with __slots__
 * --------------------------------------------------------------------------------- */
const char *const EVENT_FIELDS[3] = {"record", "decoded", "control"};
const char *const DECODED_FIELDS[6] = {"key_text", "value_text", "key_json", "value_json",
                                       "error", "note"};

int
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

/* A Python int argument as int64; 0 on success, 1 when it does not fit (or is not
 * an int), -1 on another error. */
int
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
 * The module: every entry point in one table (the one place a name is bound to its C
 * function), each METH_FASTCALL
 * --------------------------------------------------------------------------------- */
#define KD_METHOD(name, doc) {#name, (PyCFunction)(void (*)(void))sp_##name, METH_FASTCALL, doc}

static PyMethodDef methods[] = {
    KD_METHOD(scan_v2_records,
              "scan_v2_records(buf, start, end, count, max_headers, RecordScan): record statistics of a v2 "
              "records area (see kdump.records.scan)."),
    KD_METHOD(decode_v2_records,
              "decode_v2_records(buf, pos, end, record, count, want, headers_left, headers_max, "
              "base_offset, base_timestamp, append_time, base_sequence, shift, compressed, Record): "
              "(records, fault, position)."),
    KD_METHOD(record_events,
              "record_events(records, RecordEvent, Decoded | None): one event per record."),
    KD_METHOD(crc32c,
              "crc32c(data, start=0, end=len(data)): CRC-32C (Castagnoli) of data[start:end]."),
    KD_METHOD(crc32,
              "crc32(data, start=0, end=len(data)): CRC-32 (zlib's) of data[start:end]."),
    KD_METHOD(verify_run,
              "verify_run(data, start, stop, prev_last, segment_base, deep, max_headers, max_batch_bytes, "
              "decompress[, soft_stop, chunk, read_ahead][, gaps]): consume the batches from data[start] "
              "(data a buffer, or a file descriptor the walk reads) verify-crc reports nothing about "
              "(see kdump.ops.verify); gaps: stop at a gap in the offsets too."),
    KD_METHOD(text_record_lines,
              "text_record_lines(events, timestamp_type, skip_metadata, print_contents, RecordEvent, "
              "Record, Decoded): DumpLogSegments' record lines of a v2 batch."),
    KD_METHOD(json_record_lines,
              "json_record_lines(events, prefix, timestamp_type_json, encoding, RecordEvent, Record, "
              "Decoded, crc_valid): the JSON Lines record objects of a v2 batch."),
    KD_METHOD(record_offsets,
              "record_offsets(records, last_offset): (last offset, [(after, next) ...])."),
    KD_METHOD(number_key_indices,
              "number_key_indices(records): indices of the records whose key is a number key."),
    KD_METHOD(size_run,
              "size_run(data, start, stop, end, check_next, max_headers, max_batch_bytes, decompress, "
              "producer_ids, deep): size-report's accounting of the intact v2 batches from data[start]."),
    KD_METHOD(header_run,
              "header_run(fd, size, buf, buf_at, pos, last_size, prev_last, attributes, epoch, "
              "producer_id, producer_epoch, until, max_batch_bytes): the header walk's run of v2 "
              "batches that change nothing (see kdump.ops.compare_replicas.header_run)."),
    KD_METHOD(batch_json,
              "batch_json(data, index, position, crc_valid, batch_head, record_head): dump's batch "
              "line and record prefix of a v2 batch."),
    KD_METHOD(text_batch_line,
              "text_batch_line(data, index, position, crc_valid): DumpLogSegments' line of a v2 "
              "batch."),
    KD_METHOD(record_columns,
              "record_columns(records): kdump export's six per-record columns of a batch."),
    KD_METHOD(packed_v2_records,
              "packed_v2_records(buf, pos, end, count, headers_max, base_offset, base_timestamp, "
              "append_time, base_sequence): (parts, n, fault, position), kdump export's columns of a "
              "v2 batch's records."),
    KD_METHOD(lengths_offsets,
              "lengths_offsets(lengths): (offsets, validity | None, null_count) of packed int32 "
              "lengths."),
    KD_METHOD(partition_event,
              "partition_event(TimelineEvent, time, path, position, offset, before, after, "
              "replicated): kdump timeline's event of a KRaft partition change (see "
              "kdump.ops.timeline.metadata)."),
    KD_METHOD(event_json,
              "event_json(event, TimelineEvent): kdump timeline's JSON line of an event (see "
              "kdump.render.timeline)."),
    KD_METHOD(metadata_changes,
              "metadata_changes(TimelineEvent, chunk, replicated, fallback, offset, time, name, "
              "changes, committed_at, path, position): kdump timeline's events of one replayed "
              "metadata record (see kdump.ops.timeline.metadata)."),
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
    return PyModule_Create(&module);
}

