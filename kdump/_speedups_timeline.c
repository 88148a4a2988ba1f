/*
 * kdump._speedups: kdump timeline's event of a KRaft partition change.
 *
 *   partition_event  kdump.ops.timeline.metadata.partition_event_py
 *
 * A busy metadata log is mostly PartitionChangeRecords: each one's event (its kind,
 * words, correlation keys and the brokers it involves) is made here, in one pass over
 * the before and after objects, and the TimelineEvent's slots are filled directly (as
 * its __init__ would fill them).  Anything outside what is handled here (a field that
 * is not the plain type the replay gives, a missing field) returns NotImplemented and
 * the Python twin says it (tests/native/test_speedups.py and tests/ops/timeline prove
 * the two alike).
 */
#include "_speedups.h"

/* TimelineEvent's slots (kdump/ops/timeline/event.py), in this order */
static const char *const TL_FIELDS[] = {
    "broker", "clock", "estimate", "file", "group", "involves", "keys", "kind", "late",
    "log_dir", "object", "offset", "partition", "position", "problem", "producer_id",
    "related", "related_more", "replicas", "seq", "severity", "source", "text", "time",
    "topic", "transactional_id", "where"};
enum {
    TL_BROKER, TL_CLOCK, TL_ESTIMATE, TL_FILE, TL_GROUP, TL_INVOLVES, TL_KEYS, TL_KIND,
    TL_LATE, TL_LOG_DIR, TL_OBJECT, TL_OFFSET, TL_PARTITION, TL_POSITION, TL_PROBLEM,
    TL_PRODUCER_ID, TL_RELATED, TL_RELATED_MORE, TL_REPLICAS, TL_SEQ, TL_SEVERITY, TL_SOURCE,
    TL_TEXT, TL_TIME, TL_TOPIC, TL_TRANSACTIONAL_ID, TL_WHERE, N_TL_FIELDS
};

static Layout event_layout;

/* interned strings, made once */
static PyObject *s_controller, *s_unknown, *s_metadata, *s_epoch, *s_broker_down,
    *s_leader, *s_isr, *s_elr, *s_last_known_elr, *s_replicas, *s_leader_epoch, *s_topic,
    *s_partition, *s_unchanged, *s_null, *k_leader_change, *k_isr_change, *k_elr_change,
    *k_reassignment, *k_partition_change, *quiet, *s_empty;

static int
strings_init(void)
{
    static const char *const quiet_names[] = {"partition_epoch", "directories", "type",
                                              "topic", "topic_id", "partition"};
    PyObject *l;
    int i;
    if (quiet != NULL)
        return 0;
#define INTERN(var, text)                                                                    \
    if ((var = PyUnicode_InternFromString(text)) == NULL)                                   \
        return -1;
    INTERN(s_controller, "controller");
    INTERN(s_unknown, "unknown");
    INTERN(s_metadata, "metadata");
    INTERN(s_epoch, "epoch");
    INTERN(s_broker_down, "broker-down");
    INTERN(s_leader, "leader");
    INTERN(s_isr, "isr");
    INTERN(s_elr, "elr");
    INTERN(s_last_known_elr, "last_known_elr");
    INTERN(s_replicas, "replicas");
    INTERN(s_leader_epoch, "leader_epoch");
    INTERN(s_topic, "topic");
    INTERN(s_partition, "partition");
    INTERN(s_unchanged, "unchanged");
    INTERN(s_null, "null");
    INTERN(s_empty, "");
    INTERN(k_leader_change, "leader-change");
    INTERN(k_isr_change, "isr-change");
    INTERN(k_elr_change, "elr-change");
    INTERN(k_reassignment, "reassignment");
    INTERN(k_partition_change, "partition-change");
#undef INTERN
    l = PyList_New(0);
    if (l == NULL)
        return -1;
    for (i = 0; i < 6; i++) {
        PyObject *s = PyUnicode_InternFromString(quiet_names[i]);
        if (s == NULL || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return -1;
        }
        Py_DECREF(s);
    }
    quiet = PyFrozenSet_New(l);
    Py_DECREF(l);
    return quiet == NULL ? -1 : 0;
}

#define NOT_HANDLED 1

/* An exact int that fits 64 bits: 0, NOT_HANDLED otherwise, -1 on an error. */
static int
exact_i64(PyObject *o, int64_t *out)
{
    int overflow = 0;
    long long v;
    if (o == NULL || !PyLong_CheckExact(o))
        return NOT_HANDLED;
    v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
        return NOT_HANDLED;
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* A list of exact ints fitting 64 bits, copied into *out (malloc'd, *n items). */
static int
int_list(PyObject *o, int64_t **out, Py_ssize_t *n)
{
    Py_ssize_t i, len;
    int64_t *v;
    if (o == NULL || !PyList_CheckExact(o))
        return NOT_HANDLED;
    len = PyList_GET_SIZE(o);
    v = PyMem_Malloc(sizeof(int64_t) * (size_t)(len ? len : 1));
    if (v == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < len; i++) {
        int r = exact_i64(PyList_GET_ITEM(o, i), &v[i]);
        if (r != 0) {
            PyMem_Free(v);
            return r;
        }
    }
    *out = v;
    *n = len;
    return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sort v[0:n] and drop repeats: the new count. */
static Py_ssize_t
sorted_unique(int64_t *v, Py_ssize_t n)
{
    Py_ssize_t i, k = 0;
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof(int64_t), cmp_i64);
    for (i = 1; i < n; i++)
        if (v[i] != v[k])
            v[++k] = v[i];
    return k + 1;
}

/* str(v) as kdump.ops.timeline.metadata._show says a value: a list as [a,b], None as
 * null (``ids``: _ids, None as None).  A new reference, or NULL. */
static PyObject *
show(PyObject *v, int ids)
{
    Py_ssize_t i, n;
    PyObject *parts, *sep, *joined, *out;
    if (PyList_Check(v)) {
        n = PyList_GET_SIZE(v);
        parts = PyList_New(n);
        if (parts == NULL)
            return NULL;
        for (i = 0; i < n; i++) {
            PyObject *s = PyObject_Str(PyList_GET_ITEM(v, i));
            if (s == NULL) {
                Py_DECREF(parts);
                return NULL;
            }
            PyList_SET_ITEM(parts, i, s);
        }
        sep = PyUnicode_FromString(",");
        if (sep == NULL) {
            Py_DECREF(parts);
            return NULL;
        }
        joined = PyUnicode_Join(sep, parts);
        Py_DECREF(sep);
        Py_DECREF(parts);
        if (joined == NULL)
            return NULL;
        out = PyUnicode_FromFormat("[%U]", joined);
        Py_DECREF(joined);
        return out;
    }
    if (v == Py_None && !ids) {
        Py_INCREF(s_null);
        return s_null;
    }
    return PyObject_Str(v);
}

/* Append "k before -> after" (or the leader change's words) to ``parts``. */
static int
append_str(PyObject *parts, PyObject *s)
{
    int r;
    if (s == NULL)
        return -1;
    r = PyList_Append(parts, s);
    Py_DECREF(s);
    return r;
}

#define MAX_FIELDS 64

typedef struct {
    PyObject *before, *after, *replicated, *topic, *partition;
    PyObject *keys, *involves, *text, *kind, *object;
} Change;

static void
change_clear(Change *c)
{
    Py_CLEAR(c->keys);
    Py_CLEAR(c->involves);
    Py_CLEAR(c->text);
    Py_CLEAR(c->object);
}

static PyObject *
get(PyObject *d, PyObject *k)
{
    return PyDict_GetItemWithError(d, k); /* borrowed, NULL when missing */
}

/* The words of a leader change: "leader B -> A, epoch E[, isr [..] -> [..]]". */
static PyObject *
leader_words(Change *c, PyObject *b_leader, PyObject *a_leader, int isr_changed)
{
    PyObject *epoch = get(c->after, s_leader_epoch), *out;
    if (epoch == NULL)
        return NULL;
    if (!isr_changed)
        return PyUnicode_FromFormat("leader %S -> %S, epoch %S", b_leader, a_leader, epoch);
    {
        PyObject *bi = show(get(c->before, s_isr), 1), *ai;
        if (bi == NULL)
            return NULL;
        ai = show(get(c->after, s_isr), 1);
        if (ai == NULL) {
            Py_DECREF(bi);
            return NULL;
        }
        out = PyUnicode_FromFormat("leader %S -> %S, epoch %S, isr %U -> %U", b_leader,
                                   a_leader, epoch, bi, ai);
        Py_DECREF(bi);
        Py_DECREF(ai);
        return out;
    }
}

/* The change's words, keys and brokers: 0, NOT_HANDLED, 2 when the objects' fields
 * differ (the general path says it), -1 on an error. */
static int
partition_change(Change *c)
{
    PyObject *bk, *bv, *ak, *av, *changed_k[MAX_FIELDS];
    Py_ssize_t bpos = 0, apos = 0, nchanged = 0, i;
    PyObject *bvals[MAX_FIELDS], *avals[MAX_FIELDS];
    int leader = 0, isr = 0, elr = 0, replicas = 0, epoch_bumped = 0, r;
    PyObject *b_leader, *a_leader, *parts = NULL;
    int64_t bl, al, *b_isr = NULL, *a_isr = NULL, *b_rep = NULL, *a_rep = NULL, *all = NULL;
    Py_ssize_t nb_isr = 0, na_isr = 0, nb_rep = 0, na_rep = 0, nall = 0;
    PyObject *keys = NULL;
    int rc = -1;

    if (PyDict_GET_SIZE(c->before) != PyDict_GET_SIZE(c->after))
        return 2;
    while (PyDict_Next(c->after, &apos, &ak, &av)) {
        int eq, quiet_field;
        if (!PyDict_Next(c->before, &bpos, &bk, &bv))
            return 2;
        if (bk != ak) {
            eq = PyObject_RichCompareBool(bk, ak, Py_EQ);
            if (eq < 0)
                return -1;
            if (!eq)
                return 2;
        }
        if (!PyUnicode_CheckExact(ak))
            return NOT_HANDLED;
        quiet_field = PySet_Contains(quiet, ak);
        if (quiet_field < 0)
            return -1;
        if (quiet_field)
            continue;
        {
            PyObject *ne = PyObject_RichCompare(bv, av, Py_NE);
            if (ne == NULL)
                return -1;
            eq = PyObject_IsTrue(ne);
            Py_DECREF(ne);
            if (eq < 0)
                return -1;
        }
        if (!eq)
            continue;
        if (nchanged >= MAX_FIELDS)
            return NOT_HANDLED;
        changed_k[nchanged] = ak;
        bvals[nchanged] = bv;
        avals[nchanged] = av;
        nchanged++;
        if (PyUnicode_Compare(ak, s_leader) == 0)
            leader = 1;
        else if (PyUnicode_Compare(ak, s_isr) == 0)
            isr = 1;
        else if (PyUnicode_Compare(ak, s_elr) == 0 ||
                 PyUnicode_Compare(ak, s_last_known_elr) == 0)
            elr = 1;
        else if (PyUnicode_Compare(ak, s_replicas) == 0)
            replicas = 1;
        else if (PyUnicode_Compare(ak, s_leader_epoch) == 0)
            epoch_bumped = 1;
        if (PyErr_Occurred())
            return -1;
    }
    c->kind = leader ? k_leader_change : isr ? k_isr_change : elr ? k_elr_change :
              replicas ? k_reassignment : k_partition_change;

    c->topic = get(c->after, s_topic);
    c->partition = get(c->after, s_partition);
    b_leader = get(c->before, s_leader);
    a_leader = get(c->after, s_leader);
    if (PyErr_Occurred())
        return -1;
    if (c->topic == NULL || !PyUnicode_CheckExact(c->topic) || c->partition == NULL ||
        (r = exact_i64(c->partition, &bl)) == NOT_HANDLED)
        return NOT_HANDLED;
    if (r < 0)
        return -1;
    if ((r = exact_i64(b_leader, &bl)) != 0 || (r = exact_i64(a_leader, &al)) != 0)
        return r;
    if ((r = int_list(get(c->before, s_isr), &b_isr, &nb_isr)) != 0)
        goto out_r;
    if ((r = int_list(get(c->after, s_isr), &a_isr, &na_isr)) != 0)
        goto out_r;
    if ((r = int_list(get(c->before, s_replicas), &b_rep, &nb_rep)) != 0)
        goto out_r;
    if ((r = int_list(get(c->after, s_replicas), &a_rep, &na_rep)) != 0)
        goto out_r;
    if (epoch_bumped) {
        PyObject *e = get(c->after, s_leader_epoch);
        int64_t ev;
        if ((r = exact_i64(e, &ev)) != 0)
            goto out_r;
    }
    for (i = 0; i < nchanged; i++) {
        /* every shown value is a plain value (an int, a str, None, a list of them) */
        PyObject *vs[2] = {bvals[i], avals[i]};
        int j;
        for (j = 0; j < 2; j++) {
            PyObject *v = vs[j];
            if (!(v == Py_None || PyLong_CheckExact(v) || PyUnicode_CheckExact(v) ||
                  PyBool_Check(v) || PyList_CheckExact(v))) {
                r = NOT_HANDLED;
                goto out_r;
            }
        }
    }

    /* the words */
    if (leader) {
        c->text = leader_words(c, b_leader, a_leader, isr);
    } else if (nchanged == 0) {
        Py_INCREF(s_unchanged);
        c->text = s_unchanged;
    } else {
        PyObject *sep;
        parts = PyList_New(0);
        if (parts == NULL)
            goto out;
        for (i = 0; i < nchanged; i++) {
            PyObject *b = show(bvals[i], 0), *a, *s;
            if (b == NULL)
                goto out;
            a = show(avals[i], 0);
            if (a == NULL) {
                Py_DECREF(b);
                goto out;
            }
            s = PyUnicode_FromFormat("%U %U -> %U", changed_k[i], b, a);
            Py_DECREF(b);
            Py_DECREF(a);
            if (append_str(parts, s) < 0)
                goto out;
        }
        sep = PyUnicode_FromString(", ");
        if (sep == NULL)
            goto out;
        c->text = PyUnicode_Join(sep, parts);
        Py_DECREF(sep);
    }
    if (c->text == NULL)
        goto out;
    c->object = PyUnicode_FromFormat("%U/%S", c->topic, c->partition);
    if (c->object == NULL)
        goto out;

    /* the keys */
    keys = PyList_New(0);
    if (keys == NULL)
        goto out;
    if (epoch_bumped) {
        int in = 1;
        if (c->replicated != Py_None) {
            PyObject *tp = PyTuple_Pack(2, c->topic, c->partition);
            if (tp == NULL)
                goto out;
            in = PySequence_Contains(c->replicated, tp);
            Py_DECREF(tp);
            if (in < 0)
                goto out;
        }
        if (in && append_str(keys, PyTuple_Pack(4, s_epoch, c->topic, c->partition,
                                                 get(c->after, s_leader_epoch))) < 0)
            goto out;
    }
    if (isr) {
        /* sorted(set(before isr) - set(after isr)) */
        int64_t *gone = PyMem_Malloc(sizeof(int64_t) * (size_t)(nb_isr ? nb_isr : 1));
        Py_ssize_t ngone = 0, j;
        if (gone == NULL) {
            PyErr_NoMemory();
            goto out;
        }
        for (i = 0; i < nb_isr; i++) {
            int kept = 0;
            for (j = 0; j < na_isr; j++)
                if (a_isr[j] == b_isr[i]) {
                    kept = 1;
                    break;
                }
            if (!kept)
                gone[ngone++] = b_isr[i];
        }
        ngone = sorted_unique(gone, ngone);
        for (i = 0; i < ngone; i++) {
            PyObject *b = PyLong_FromLongLong(gone[i]);
            if (b == NULL || append_str(keys, PyTuple_Pack(2, s_broker_down, b)) < 0) {
                Py_XDECREF(b);
                PyMem_Free(gone);
                goto out;
            }
            Py_DECREF(b);
        }
        PyMem_Free(gone);
    }
    if (bl != al && bl >= 0 && append_str(keys, PyTuple_Pack(2, s_broker_down, b_leader)) < 0)
        goto out;
    c->keys = PyList_AsTuple(keys);
    if (c->keys == NULL)
        goto out;

    /* the brokers: replicas, ISR and leader before and after, those >= 0, sorted */
    all = PyMem_Malloc(sizeof(int64_t) * (size_t)(nb_isr + na_isr + nb_rep + na_rep + 2));
    if (all == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    memcpy(all, b_rep, sizeof(int64_t) * (size_t)nb_rep);
    nall = nb_rep;
    memcpy(all + nall, a_rep, sizeof(int64_t) * (size_t)na_rep);
    nall += na_rep;
    memcpy(all + nall, b_isr, sizeof(int64_t) * (size_t)nb_isr);
    nall += nb_isr;
    memcpy(all + nall, a_isr, sizeof(int64_t) * (size_t)na_isr);
    nall += na_isr;
    all[nall++] = bl;
    all[nall++] = al;
    nall = sorted_unique(all, nall);
    {
        Py_ssize_t first = 0, k;
        while (first < nall && all[first] < 0)
            first++;
        c->involves = PyTuple_New(nall - first);
        if (c->involves == NULL)
            goto out;
        for (k = first; k < nall; k++) {
            PyObject *b = PyLong_FromLongLong(all[k]);
            if (b == NULL)
                goto out;
            PyTuple_SET_ITEM(c->involves, k - first, b);
        }
    }
    rc = 0;
    goto out;
out_r:
    rc = r;
out:
    Py_XDECREF(parts);
    Py_XDECREF(keys);
    PyMem_Free(b_isr);
    PyMem_Free(a_isr);
    PyMem_Free(b_rep);
    PyMem_Free(a_rep);
    PyMem_Free(all);
    if (rc != 0)
        change_clear(c);
    return rc;
}

/* partition_event(TimelineEvent, time, path, position, offset, before, after, replicated):
 * the event of a partition's change (kdump.ops.timeline.metadata.partition_event_py),
 * None when the two objects' fields differ, NotImplemented for anything else. */
KD_ENTRY(partition_event)
{
    Change c = {0};
    PyObject *ev, *ts, *time_v;
    int64_t t;
    int r;
    (void)self;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "partition_event takes 8 arguments");
        return NULL;
    }
    if (strings_init() < 0)
        return NULL;
    if (layout_get(&event_layout, args[0], TL_FIELDS, N_TL_FIELDS) < 0)
        return NULL;
    if (!PyDict_CheckExact(args[5]) || !PyDict_CheckExact(args[6]))
        Py_RETURN_NOTIMPLEMENTED;
    ts = args[1];
    if (ts == Py_None) {
        time_v = Py_None;
    } else {
        r = exact_i64(ts, &t);
        if (r < 0)
            return NULL;
        if (r == NOT_HANDLED)
            Py_RETURN_NOTIMPLEMENTED;
        time_v = t >= 0 ? ts : Py_None;
    }
    c.before = args[5];
    c.after = args[6];
    c.replicated = args[7];
    r = partition_change(&c);
    if (r < 0)
        return NULL;
    if (r == NOT_HANDLED)
        Py_RETURN_NOTIMPLEMENTED;
    if (r == 2)
        Py_RETURN_NONE;
    ev = layout_alloc(&event_layout);
    if (ev == NULL) {
        change_clear(&c);
        return NULL;
    }
    {
        PyObject *related = PyList_New(0);
        PyObject *zero = PyLong_FromLong(0);
        if (related == NULL || zero == NULL) {
            Py_XDECREF(related);
            Py_XDECREF(zero);
            change_clear(&c);
            Py_DECREF(ev);
            return NULL;
        }
#define SET(i, v) SLOT_SET(ev, &event_layout, (i), (v))
#define SETREF(i, v) (Py_INCREF((v)), SET((i), (v)))
        SETREF(TL_TIME, time_v);
        SETREF(TL_CLOCK, time_v == Py_None ? s_unknown : s_controller);
        SETREF(TL_KIND, c.kind);
        SETREF(TL_SOURCE, s_metadata);
        SET(TL_OBJECT, c.object);
        SET(TL_TEXT, c.text);
        SETREF(TL_ESTIMATE, Py_False);
        SETREF(TL_FILE, args[2]);
        SETREF(TL_POSITION, args[3]);
        SETREF(TL_OFFSET, args[4]);
        SETREF(TL_BROKER, Py_None);
        SETREF(TL_LOG_DIR, Py_None);
        SETREF(TL_TOPIC, c.topic);
        SETREF(TL_PARTITION, c.partition);
        SETREF(TL_PRODUCER_ID, Py_None);
        SETREF(TL_TRANSACTIONAL_ID, Py_None);
        SETREF(TL_GROUP, Py_None);
        SETREF(TL_SEVERITY, Py_None);
        SET(TL_KEYS, c.keys);
        SET(TL_RELATED, related);
        SETREF(TL_RELATED_MORE, zero);
        SETREF(TL_LATE, Py_False);
        SET(TL_SEQ, zero);
        SETREF(TL_PROBLEM, Py_None);
        SETREF(TL_WHERE, Py_None);
        SET(TL_INVOLVES, c.involves);
        SETREF(TL_REPLICAS, Py_None);
#undef SET
#undef SETREF
    }
    return ev;
}

/* ---------------------------------------------------------------------------------
 * An event's JSON line (kdump.render.timeline.event_json_py): helpers return 0, 1 for
 * "not handled here" (NotImplemented: Python writes the line), -1 on an error.
 * --------------------------------------------------------------------------------- */

/* A str as a JSON string (None: null when ``nullable``). */
static int
put_jstr(Buf *b, PyObject *s, int nullable)
{
    Py_ssize_t n;
    const char *u;
    if (s == Py_None && nullable)
        return PUTS(b, "null");
    if (s == NULL || !PyUnicode_Check(s))
        return NOT_HANDLED;
    u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear(); /* lone surrogates: Python escapes them */
            return NOT_HANDLED;
        }
        return -1;
    }
    return buf_json_utf8(b, (const unsigned char *)u, n);
}

/* An int or None */
static int
put_jint(Buf *b, PyObject *o)
{
    if (o == Py_None)
        return PUTS(b, "null");
    if (o == NULL)
        return NOT_HANDLED;
    return buf_int(b, o);
}

static int
put_jbool(Buf *b, PyObject *o)
{
    int t;
    if (o == NULL)
        return NOT_HANDLED;
    t = PyObject_IsTrue(o);
    if (t < 0)
        return -1;
    return t ? PUTS(b, "true") : PUTS(b, "false");
}

#define TRY(call)                                                                            \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != 0)                                                                        \
            return rc_;                                                                      \
    } while (0)
#define GET(i) SLOT_GET(ev, &event_layout, (i))

static int
event_line(Buf *b, PyObject *ev)
{
    PyObject *related = GET(TL_RELATED), *more = GET(TL_RELATED_MORE), *sev;
    int has_more;
    TRY(PUTS(b, "{\"type\":\"timeline_event\",\"time\":"));
    TRY(put_jint(b, GET(TL_TIME)));
    TRY(PUTS(b, ",\"clock\":"));
    TRY(put_jstr(b, GET(TL_CLOCK), 1));
    TRY(PUTS(b, ",\"estimate\":"));
    TRY(put_jbool(b, GET(TL_ESTIMATE)));
    TRY(PUTS(b, ",\"kind\":"));
    TRY(put_jstr(b, GET(TL_KIND), 1));
    TRY(PUTS(b, ",\"source\":"));
    TRY(put_jstr(b, GET(TL_SOURCE), 1));
    TRY(PUTS(b, ",\"file\":"));
    TRY(put_jstr(b, GET(TL_FILE), 1));
    TRY(PUTS(b, ",\"position\":"));
    TRY(put_jint(b, GET(TL_POSITION)));
    TRY(PUTS(b, ",\"offset\":"));
    TRY(put_jint(b, GET(TL_OFFSET)));
    TRY(PUTS(b, ",\"broker\":"));
    TRY(put_jint(b, GET(TL_BROKER)));
    TRY(PUTS(b, ",\"log_dir\":"));
    TRY(put_jstr(b, GET(TL_LOG_DIR), 1));
    TRY(PUTS(b, ",\"topic\":"));
    TRY(put_jstr(b, GET(TL_TOPIC), 1));
    TRY(PUTS(b, ",\"partition\":"));
    TRY(put_jint(b, GET(TL_PARTITION)));
    TRY(PUTS(b, ",\"producer_id\":"));
    TRY(put_jint(b, GET(TL_PRODUCER_ID)));
    TRY(PUTS(b, ",\"transactional_id\":"));
    TRY(put_jstr(b, GET(TL_TRANSACTIONAL_ID), 1));
    TRY(PUTS(b, ",\"group\":"));
    TRY(put_jstr(b, GET(TL_GROUP), 1));
    TRY(PUTS(b, ",\"object\":"));
    TRY(put_jstr(b, GET(TL_OBJECT), 1));
    TRY(PUTS(b, ",\"text\":"));
    TRY(put_jstr(b, GET(TL_TEXT), 0));
    TRY(PUTS(b, ",\"related\":["));
    if (related == NULL || !PyList_CheckExact(related) || more == NULL ||
        !PyLong_CheckExact(more))
        return NOT_HANDLED;
    {
        Py_ssize_t i, n = PyList_GET_SIZE(related);
        for (i = 0; i < n; i++) {
            if (i)
                TRY(PUTS(b, ","));
            TRY(put_jstr(b, PyList_GET_ITEM(related, i), 0));
        }
        has_more = PyObject_IsTrue(more);
        if (has_more < 0)
            return -1;
        if (has_more) {
            if (n)
                TRY(PUTS(b, ","));
            TRY(PUTS(b, "\"and "));
            TRY(buf_int(b, more));
            TRY(PUTS(b, " more like these\""));
        }
    }
    TRY(PUTS(b, "],\"late\":"));
    TRY(put_jbool(b, GET(TL_LATE)));
    sev = GET(TL_SEVERITY);
    if (sev == NULL || GET(TL_REPLICAS) != Py_None)
        return NOT_HANDLED;
    if (sev != Py_None) {
        TRY(PUTS(b, ",\"severity\":"));
        TRY(put_jstr(b, sev, 0));
    }
    return PUTS(b, "}\n");
}
#undef GET
#undef TRY

/* event_json(event, TimelineEvent): the event's JSON line, or NotImplemented.  The
 * buffer is kept from call to call (the GIL is held throughout). */
KD_ENTRY(event_json)
{
    static Buf b = {NULL, 0, 0};
    int rc;
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "event_json takes 2 arguments");
        return NULL;
    }
    if (layout_get(&event_layout, args[1], TL_FIELDS, N_TL_FIELDS) < 0)
        return NULL;
    if (Py_TYPE(args[0]) != event_layout.type)
        Py_RETURN_NOTIMPLEMENTED;
    b.len = 0;
    rc = event_line(&b, args[0]);
    if (rc < 0)
        return NULL;
    if (rc != 0)
        Py_RETURN_NOTIMPLEMENTED;
    return PyUnicode_DecodeUTF8(b.p, b.len, "strict");
}
