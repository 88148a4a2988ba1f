/*
 * kdump._speedups: kdump timeline's hottest steps over a busy metadata log.
 *
 *   partition_event  kdump.ops.timeline.metadata.partition_event_py
 *   metadata_changes kdump.ops.timeline.metadata.MetadataStream's on_event
 *   event_json       kdump.render.timeline.event_json_py
 *
 * Size: about 910 lines, as it is one family: the three share TimelineEvent's slot
 * layout, the interned strings and the reused buffers, and each is one step of the same
 * path (a replayed record, its event, the event's JSON line).
 *
 * A busy metadata log is mostly PartitionChangeRecords: each one's event (its kind,
 * words, correlation keys and the brokers it involves) is made here, in one pass over
 * the before and after objects, and the TimelineEvent's slots are filled directly (as
 * its __init__ would fill them).  Anything outside what is handled here (a field that
 * is not the plain type the replay gives, a missing field) returns NotImplemented and
 * the Python twin says it (tests/native/test_timeline_event.py and tests/ops/timeline
 * prove the two alike).
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
/* The offset of the class's "members" slot (a classic group's rebalance: None on every
 * event made here), 0 when it has none */
static Py_ssize_t members_off;
static PyTypeObject *members_of;

/* TimelineEvent's layout, and its optional slots */
static int
event_layout_get(PyObject *cls)
{
    PyObject *d;
    if (layout_get(&event_layout, cls, TL_FIELDS, N_TL_FIELDS) < 0)
        return -1;
    if (members_of == event_layout.type)
        return 0;
    members_off = 0;
    d = PyObject_GetAttrString(cls, "members");
    if (d == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    } else {
        if (Py_TYPE(d) == &PyMemberDescr_Type) {
            PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
            if (m->type == KD_T_OBJECT_EX && m->offset > 0)
                members_off = m->offset;
        }
        Py_DECREF(d);
        if (members_off == 0) {
            PyErr_SetString(PyExc_TypeError, "TimelineEvent.members is not a plain slot");
            return -1;
        }
    }
    members_of = event_layout.type;
    return 0;
}

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

#define MAX_FIELDS 64
/* brokers named by a change's replicas and ISR, before and after, at most */
#define MAX_IDS 1024

/* What a field of a partition object is to a change, by its name */
enum { F_OTHER, F_QUIET, F_LEADER, F_ISR, F_ELR, F_REPLICAS, F_EPOCH };

/* The field names last seen at each position, with what they are: objects of one
 * metadata version have one field order, and the objects of a partition share their
 * key objects (the image copies the last object), so a name is looked up once. */
static PyObject *seen_names[MAX_FIELDS];
static int seen_class[MAX_FIELDS];

static int
field_class(Py_ssize_t i, PyObject *k)
{
    int cls, q;
    if (i < MAX_FIELDS && seen_names[i] == k)
        return seen_class[i];
    q = PySet_Contains(quiet, k);
    if (q < 0)
        return -1;
    if (q)
        cls = F_QUIET;
    else if (PyUnicode_Compare(k, s_leader) == 0)
        cls = F_LEADER;
    else if (PyUnicode_Compare(k, s_isr) == 0)
        cls = F_ISR;
    else if (PyUnicode_Compare(k, s_elr) == 0 || PyUnicode_Compare(k, s_last_known_elr) == 0)
        cls = F_ELR;
    else if (PyUnicode_Compare(k, s_replicas) == 0)
        cls = F_REPLICAS;
    else if (PyUnicode_Compare(k, s_leader_epoch) == 0)
        cls = F_EPOCH;
    else
        cls = F_OTHER;
    if (PyErr_Occurred())
        return -1;
    if (i < MAX_FIELDS) {
        Py_INCREF(k);
        Py_XSETREF(seen_names[i], k);
        seen_class[i] = cls;
    }
    return cls;
}

/* A value the words say as it is: an int, a str, None, a bool, a list of them */
static int
plain(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v) || PyUnicode_CheckExact(v) || PyBool_Check(v) ||
           PyList_CheckExact(v);
}

/* str(v) of a plain value that is not a list */
static int
put_str(Buf *b, PyObject *v)
{
    if (PyLong_CheckExact(v))
        return buf_int(b, v);
    if (PyUnicode_CheckExact(v)) {
        Py_ssize_t n;
        const char *u = PyUnicode_AsUTF8AndSize(v, &n);
        if (u == NULL) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
                PyErr_Clear();
                return NOT_HANDLED;
            }
            return -1;
        }
        return buf_put(b, u, n);
    }
    if (v == Py_None)
        return PUTS(b, "None");
    if (v == Py_True)
        return PUTS(b, "True");
    if (v == Py_False)
        return PUTS(b, "False");
    return NOT_HANDLED;
}

/* kdump.ops.timeline.metadata._show (``ids``: _ids): a list as [a,b], None as null */
static int
put_show(Buf *b, PyObject *v, int ids)
{
    if (PyList_CheckExact(v)) {
        Py_ssize_t i, n = PyList_GET_SIZE(v);
        int rc;
        if (PUTS(b, "[") < 0)
            return -1;
        for (i = 0; i < n; i++) {
            if (i && PUTS(b, ",") < 0)
                return -1;
            if ((rc = put_str(b, PyList_GET_ITEM(v, i))) != 0)
                return rc;
        }
        return PUTS(b, "]");
    }
    if (v == Py_None && !ids)
        return PUTS(b, "null");
    return put_str(b, v);
}

/* Do two values differ (operator.ne, truth-tested)?  1, 0, or -1 on an error. */
static int
differ(PyObject *b, PyObject *a)
{
    PyObject *ne;
    int t;
    /* the image copies a partition's object: an unchanged field is the same object,
     * and of these types an object is equal to itself (a list compares its items
     * by identity first) */
    if (b == a && (plain(b) || PyTuple_CheckExact(b)))
        return 0;
    if (PyLong_CheckExact(b) && PyLong_CheckExact(a))
        return PyObject_RichCompareBool(b, a, Py_NE);
    ne = PyObject_RichCompare(b, a, Py_NE);
    if (ne == NULL)
        return -1;
    t = PyObject_IsTrue(ne);
    Py_DECREF(ne);
    return t;
}

/* The ints of a list of exact ints fitting 64 bits, appended to ids[*n:] */
static int
take_ids(PyObject *o, int64_t *ids, Py_ssize_t *n)
{
    Py_ssize_t i, len;
    if (o == NULL || !PyList_CheckExact(o))
        return NOT_HANDLED;
    len = PyList_GET_SIZE(o);
    if (*n + len > MAX_IDS)
        return NOT_HANDLED;
    for (i = 0; i < len; i++) {
        int r = exact_i64(PyList_GET_ITEM(o, i), &ids[*n + i]);
        if (r != 0)
            return r;
    }
    *n += len;
    return 0;
}

/* A str of the UTF-8 in b */
static PyObject *
buf_text(Buf *b)
{
    return PyUnicode_DecodeUTF8(b->p, b->len, "strict");
}

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

#define TRY(call)                                                                            \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != 0)                                                                        \
            return rc_;                                                                      \
    } while (0)

/* The change's words into b: "leader B -> A, epoch E[, isr [..] -> [..]]" (B, A: bl, al,
 * or "none"), or each
 * changed field's "name before -> after", or "unchanged". */
static int
put_words(Buf *b, Change *c, int leader, int64_t bl, int64_t al, int isr,
          PyObject *const *names,
          PyObject *const *bvals, PyObject *const *avals, Py_ssize_t nchanged)
{
    Py_ssize_t i;
    if (leader) {
        PyObject *epoch = get(c->after, s_leader_epoch);
        if (epoch == NULL)
            return PyErr_Occurred() ? -1 : NOT_HANDLED;
        /* no leader (LeaderConstants.NO_LEADER, -1) is said "none" */
        TRY(PUTS(b, "leader "));
        TRY(bl == -1 ? PUTS(b, "none") : put_str(b, get(c->before, s_leader)));
        TRY(PUTS(b, " -> "));
        TRY(al == -1 ? PUTS(b, "none") : put_str(b, get(c->after, s_leader)));
        TRY(PUTS(b, ", epoch "));
        TRY(put_str(b, epoch));
        if (isr) {
            TRY(PUTS(b, ", isr "));
            TRY(put_show(b, get(c->before, s_isr), 1));
            TRY(PUTS(b, " -> "));
            TRY(put_show(b, get(c->after, s_isr), 1));
        }
        return 0;
    }
    if (nchanged == 0)
        return PUTS(b, "unchanged");
    for (i = 0; i < nchanged; i++) {
        if (i)
            TRY(PUTS(b, ", "));
        TRY(put_str(b, names[i]));
        TRY(PUTS(b, " "));
        TRY(put_show(b, bvals[i], 0));
        TRY(PUTS(b, " -> "));
        TRY(put_show(b, avals[i], 0));
    }
    return 0;
}
#undef TRY

/* The change's words, keys and brokers: 0, NOT_HANDLED, 2 when the objects' fields
 * differ (the general path says it), -1 on an error. */
static int
partition_change(Change *c)
{
    static Buf b = {NULL, 0, 0};
    PyObject *bk, *bv, *ak, *av, *names[MAX_FIELDS], *bvals[MAX_FIELDS], *avals[MAX_FIELDS];
    Py_ssize_t bpos = 0, apos = 0, nchanged = 0, i, field = 0;
    int leader = 0, isr = 0, elr = 0, replicas = 0, epoch_bumped = 0, r;
    PyObject *b_leader, *a_leader;
    int64_t bl, al, part, ids[MAX_IDS], gone[MAX_IDS];
    Py_ssize_t nb_isr = 0, na_isr = 0, nids = 0, ngone = 0;
    PyObject *keys[MAX_IDS + 2];
    Py_ssize_t nkeys = 0;

    if (PyDict_GET_SIZE(c->before) != PyDict_GET_SIZE(c->after))
        return 2;
    while (PyDict_Next(c->after, &apos, &ak, &av)) {
        int cls, d;
        if (!PyDict_Next(c->before, &bpos, &bk, &bv))
            return 2;
        if (bk != ak) {
            int eq = PyObject_RichCompareBool(bk, ak, Py_EQ);
            if (eq < 0)
                return -1;
            if (!eq)
                return 2;
        }
        if (!PyUnicode_CheckExact(ak))
            return NOT_HANDLED;
        cls = field_class(field++, ak);
        if (cls < 0)
            return -1;
        if (cls == F_QUIET)
            continue;
        d = differ(bv, av);
        if (d < 0)
            return -1;
        if (!d)
            continue;
        if (nchanged >= MAX_FIELDS || !plain(bv) || !plain(av))
            return NOT_HANDLED;
        names[nchanged] = ak;
        bvals[nchanged] = bv;
        avals[nchanged] = av;
        nchanged++;
        leader |= cls == F_LEADER;
        isr |= cls == F_ISR;
        elr |= cls == F_ELR;
        replicas |= cls == F_REPLICAS;
        epoch_bumped |= cls == F_EPOCH;
    }
    c->kind = leader ? k_leader_change : isr ? k_isr_change : elr ? k_elr_change :
              replicas ? k_reassignment : k_partition_change;

    c->topic = get(c->after, s_topic);
    c->partition = get(c->after, s_partition);
    b_leader = get(c->before, s_leader);
    a_leader = get(c->after, s_leader);
    if (PyErr_Occurred())
        return -1;
    if (c->topic == NULL || !PyUnicode_CheckExact(c->topic))
        return NOT_HANDLED;
    if ((r = exact_i64(c->partition, &part)) != 0 || (r = exact_i64(b_leader, &bl)) != 0 ||
        (r = exact_i64(a_leader, &al)) != 0)
        return r;
    if ((r = take_ids(get(c->before, s_isr), ids, &nids)) != 0)
        return r;
    nb_isr = nids;
    if ((r = take_ids(get(c->after, s_isr), ids, &nids)) != 0)
        return r;
    na_isr = nids - nb_isr;
    if ((r = take_ids(get(c->before, s_replicas), ids, &nids)) != 0 ||
        (r = take_ids(get(c->after, s_replicas), ids, &nids)) != 0)
        return r;
    if (nids + 2 > MAX_IDS)
        return NOT_HANDLED;
    if (epoch_bumped) {
        int64_t ev;
        if ((r = exact_i64(get(c->after, s_leader_epoch), &ev)) != 0)
            return r;
    }
    if (PyErr_Occurred())
        return -1;

    /* the words and the object's name */
    b.len = 0;
    r = put_words(&b, c, leader, bl, al, isr, names, bvals, avals, nchanged);
    if (r != 0)
        return r;
    c->text = buf_text(&b);
    if (c->text == NULL)
        return -1;
    b.len = 0;
    if ((r = put_str(&b, c->topic)) != 0 || (r = PUTS(&b, "/")) != 0 ||
        (r = buf_int(&b, c->partition)) != 0) {
        change_clear(c);
        return r;
    }
    c->object = buf_text(&b);
    if (c->object == NULL)
        goto fail;

    /* the keys: the epoch this change began, the brokers that left the ISR (sorted),
     * the leader that lost the leadership */
    if (epoch_bumped) {
        int in = 1;
        if (c->replicated != Py_None) {
            PyObject *tp = PyTuple_Pack(2, c->topic, c->partition);
            if (tp == NULL)
                goto fail;
            in = PySequence_Contains(c->replicated, tp);
            Py_DECREF(tp);
            if (in < 0)
                goto fail;
        }
        if (in) {
            keys[nkeys] = PyTuple_Pack(4, s_epoch, c->topic, c->partition,
                                       get(c->after, s_leader_epoch));
            if (keys[nkeys] == NULL)
                goto fail;
            nkeys++;
        }
    }
    if (isr) {
        for (i = 0; i < nb_isr; i++) {
            Py_ssize_t j;
            int kept = 0;
            for (j = nb_isr; j < nb_isr + na_isr; j++)
                if (ids[j] == ids[i]) {
                    kept = 1;
                    break;
                }
            if (!kept)
                gone[ngone++] = ids[i];
        }
        ngone = sorted_unique(gone, ngone);
        for (i = 0; i < ngone; i++) {
            PyObject *id = PyLong_FromLongLong(gone[i]);
            if (id == NULL)
                goto fail;
            keys[nkeys] = PyTuple_Pack(2, s_broker_down, id);
            Py_DECREF(id);
            if (keys[nkeys] == NULL)
                goto fail;
            nkeys++;
        }
    }
    if (bl != al && bl >= 0) {
        keys[nkeys] = PyTuple_Pack(2, s_broker_down, b_leader);
        if (keys[nkeys] == NULL)
            goto fail;
        nkeys++;
    }
    c->keys = PyTuple_New(nkeys);
    if (c->keys == NULL)
        goto fail;
    for (i = 0; i < nkeys; i++)
        PyTuple_SET_ITEM(c->keys, i, keys[i]);
    nkeys = 0;

    /* the brokers: replicas, ISR and leader before and after, those >= 0, sorted */
    ids[nids++] = bl;
    ids[nids++] = al;
    nids = sorted_unique(ids, nids);
    {
        Py_ssize_t first = 0, k;
        while (first < nids && ids[first] < 0)
            first++;
        c->involves = PyTuple_New(nids - first);
        if (c->involves == NULL)
            goto fail;
        for (k = first; k < nids; k++) {
            PyObject *id = PyLong_FromLongLong(ids[k]);
            if (id == NULL)
                goto fail;
            PyTuple_SET_ITEM(c->involves, k - first, id);
        }
    }
    return 0;
fail:
    for (i = 0; i < nkeys; i++)
        Py_DECREF(keys[i]);
    change_clear(c);
    return -1;
}

/* partition_event(TimelineEvent, time, path, position, offset, before, after, replicated):
 * the event of a partition's change (kdump.ops.timeline.metadata.partition_event_py),
 * None when the two objects' fields differ, NotImplemented for anything else. */
static PyObject *make_event(PyObject *const *args);

KD_ENTRY(partition_event)
{
    (void)self;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "partition_event takes 8 arguments");
        return NULL;
    }
    if (strings_init() < 0)
        return NULL;
    if (event_layout_get(args[0]) < 0)
        return NULL;
    return make_event(args);
}

/* partition_event's work, its arguments checked: a new reference */
static PyObject *
make_event(PyObject *const *args)
{
    Change c = {0};
    PyObject *ev, *ts, *time_v;
    int64_t t;
    int r;
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
        if (members_off > 0) {
            Py_INCREF(Py_None);
            *(PyObject **)((char *)ev + members_off) = Py_None;
        }
#undef SET
#undef SETREF
    }
    return ev;
}

/* The replay's Change (kdump/metadata/image.py) */
static const char *const CHANGE_FIELDS[] = {"before", "after"};
static Layout change_layout;
static PyObject *s_type;

/* metadata_changes(TimelineEvent, chunk, replicated, fallback, offset, time, name,
 * changes, committed_at, path, position): the metadata log's events of one replayed
 * record (the replay's on_changes, given the fields of its Event): a record changing
 * one partition's object (most of a busy log) has its event appended to ``chunk``
 * here; any other record is fallback(offset, ..., position)'s (the Python twin of the
 * whole callback). */
KD_ENTRY(metadata_changes)
{
    PyObject *changes, *change, *before, *after, *type, *fev, *margs[8];
    (void)self;
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "metadata_changes takes 11 arguments");
        return NULL;
    }
    if (strings_init() < 0)
        return NULL;
    if (s_type == NULL && (s_type = PyUnicode_InternFromString("type")) == NULL)
        return NULL;
    if (event_layout_get(args[0]) < 0)
        return NULL;
    changes = args[7];
    if (!PyList_CheckExact(args[1]) || args[4] == Py_None || !PyList_CheckExact(changes) ||
        PyList_GET_SIZE(changes) != 1)
        goto fallback;
    change = PyList_GET_ITEM(changes, 0);
    if (layout_get(&change_layout, (PyObject *)Py_TYPE(change), CHANGE_FIELDS, 2) < 0)
        goto fallback;
    before = SLOT_GET(change, &change_layout, 0);
    after = SLOT_GET(change, &change_layout, 1);
    if (before == NULL || after == NULL || !PyDict_CheckExact(before) ||
        !PyDict_CheckExact(after))
        goto fallback;
    type = PyDict_GetItemWithError(after, s_type);
    if (type == NULL) {
        if (PyErr_Occurred())
            return NULL;
        goto fallback;
    }
    if (type != s_partition && (!PyUnicode_Check(type) ||
                                PyUnicode_Compare(type, s_partition) != 0)) {
        if (PyErr_Occurred())
            return NULL;
        goto fallback;
    }
    margs[0] = args[0];
    margs[1] = args[5]; /* time */
    margs[2] = args[9]; /* path */
    margs[3] = args[10]; /* position */
    margs[4] = args[4]; /* offset */
    margs[5] = before;
    margs[6] = after;
    margs[7] = args[2];
    fev = make_event(margs);
    if (fev == NULL)
        return NULL;
    if (fev == Py_None || fev == Py_NotImplemented) {
        Py_DECREF(fev);
        goto fallback;
    }
    if (PyList_Append(args[1], fev) < 0) {
        Py_DECREF(fev);
        return NULL;
    }
    Py_DECREF(fev);
    Py_RETURN_NONE;
fallback:
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            return NULL;
        PyErr_Clear(); /* a Change class whose layout is not the one read here */
    }
    return PyObject_Vectorcall(args[3], args + 4, 7, NULL);
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
    if (sev == NULL || GET(TL_REPLICAS) != Py_None ||
        (members_off > 0 && *(PyObject **)((char *)ev + members_off) != Py_None))
        return NOT_HANDLED; /* a coalesced event's replicas, a rebalance's members */
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
    if (event_layout_get(args[1]) < 0)
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
