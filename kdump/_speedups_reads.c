/*
 * kdump._speedups, a log file's reads for the native walks, without the GIL (issue 49):
 * stretches read with pread into page-aligned buffers (kept in a small pool between
 * walks), the read-ahead thread, and verify_run's file mode (verify_file), with its
 * walk split over two threads (verify_split).  The walk itself is verify_walk in
 * _speedups_runs.c; shared declarations are in _speedups.h.
 */
#include "_speedups.h"

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------
 * verify_run's file mode (issue 49): ``data`` is a file descriptor and the positions
 * are the file's.  The walk reads the file itself, with pread, a ``chunk`` stretch at a
 * time into page-aligned buffers, so that no Python runs between stretches; where the
 * range is longer than two stretches, a POSIX thread (no GIL) reads the next stretch
 * into a second buffer while this one is walked, so that on two cores the copy from the
 * page cache costs no time of its own; a deep walk (the records too) is split over two
 * threads instead (verify_split below: the copy and the CRCs beside the records' walk,
 * about 70 ms and 55 ms a GiB on this project's machine, which one thread did one after
 * the other).  A batch cut by a stretch's end is carried to the front of the next (up to
 * a stretch; a larger one is read whole).
 *
 * Why not map the file (zero copy)?  Measured on this project's machine (bench/README.md,
 * issue 49): making and tearing down the page-table entries of a 512 MB mapping (4 KiB
 * pages) costs more CPU (0.045 s + 0.020 s) than copying it from the page cache into a
 * buffer that stays in the CPU's cache (0.049 s), and the walk over a mapping then
 * reads memory rather than cache (measured again in the tenth round: CRC-32C of every
 * batch of a 1 GiB log over a mapping, 0.14 s; pread into a 1 MiB buffer and the same
 * CRCs, 0.064 s); a mapping would also turn a file truncated under a
 * live broker into SIGBUS.  pread makes that a short read: the walk ends there and
 * Python reads that batch again and says what it is.
 * --------------------------------------------------------------------------------- */

/* One buffer: the file's bytes from ``start`` are at mem[off:off+len]; reads land at
 * mem[head:], so up to ``head`` bytes (one stretch) can be put in front of them. */
typedef struct {
    unsigned char *mem;
    int64_t head, cap, off, start, len, wanted;
} Stretch;

/* The read-ahead thread and its one request (under mu). */
typedef struct {
    int fd;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int has_request, has_result, quit;
    Stretch *target;
    int64_t got;
} Reader;

/* Stretch memory kept between walks: the walk over a file runs in steps (NATIVE_STEP in
 * kdump/records/file_records.py), and fresh buffers cost each step their page faults
 * (about 1 ms for the ring of verify_split).  At most POOL_SLOTS buffers of at most
 * POOL_LARGEST bytes are kept (16 MiB for the default 1 MiB stretches). */
#define POOL_SLOTS 8
#define POOL_LARGEST ((int64_t)4 << 20)
static struct {
    void *mem;
    int64_t cap;
} pool[POOL_SLOTS];
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

/* A pooled buffer of at least ``n`` bytes (NULL: none); *cap set to its size. */
static void *
pool_get(int64_t n, int64_t *cap)
{
    void *mem = NULL;
    int i;
    pthread_mutex_lock(&pool_mu);
    for (i = 0; i < POOL_SLOTS; i++)
        if (pool[i].mem != NULL && pool[i].cap >= n) {
            mem = pool[i].mem;
            *cap = pool[i].cap;
            pool[i].mem = NULL;
            break;
        }
    pthread_mutex_unlock(&pool_mu);
    return mem;
}

/* Give back a stretch's memory: kept when there is room, freed otherwise. */
static void
stretch_free(Stretch *st)
{
    int i;
    if (st->mem == NULL)
        return;
    if (st->cap <= POOL_LARGEST) {
        pthread_mutex_lock(&pool_mu);
        for (i = 0; i < POOL_SLOTS; i++)
            if (pool[i].mem == NULL) {
                pool[i].mem = st->mem;
                pool[i].cap = st->cap;
                st->mem = NULL;
                break;
            }
        pthread_mutex_unlock(&pool_mu);
    }
    free(st->mem);
    st->mem = NULL;
    st->cap = 0;
}

static int
stretch_reserve(Stretch *st, int64_t n)
{
    void *mem;
    int64_t cap;
    if (st->head + n <= st->cap)
        return 0;
    stretch_free(st);
    if ((mem = pool_get(st->head + n, &cap)) == NULL) {
        if (posix_memalign(&mem, 4096, (size_t)(st->head + n)) != 0)
            return -1;
        cap = st->head + n;
    }
    st->mem = mem;
    st->cap = cap;
    return 0;
}

int64_t
pread_full(int fd, unsigned char *to, int64_t n, int64_t pos)
{
    int64_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, to + got, (size_t)(n - got), (off_t)(pos + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break; /* the end (the file shrank) or an error: a short read */
        got += k;
    }
    return got;
}

/* Read ``n`` bytes at ``pos`` into st now (fewer: a short read). */
static void
stretch_fill(Stretch *st, int fd, int64_t pos, int64_t n)
{
    st->off = st->head;
    st->start = pos;
    st->len = 0;
    st->wanted = n;
    if (stretch_reserve(st, n) != 0)
        return; /* no memory: nothing held, the walk ends */
    st->len = pread_full(fd, st->mem + st->head, n, pos);
}

static void *
reader_main(void *arg)
{
    Reader *r = (Reader *)arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        Stretch *st;
        int64_t got;
        while (!r->has_request && !r->quit)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->quit)
            break;
        r->has_request = 0;
        st = r->target;
        pthread_mutex_unlock(&r->mu);
        got = pread_full(r->fd, st->mem + st->head, st->wanted, st->start);
        pthread_mutex_lock(&r->mu);
        r->got = got;
        r->has_result = 1;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static int
reader_start(Reader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&r->cv, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        return -1;
    }
    if (pthread_create(&r->thread, NULL, reader_main, r) != 0) {
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
        return -1;
    }
    return 0;
}

/* Ask for ``n`` bytes at ``pos`` into st (its memory holds head + n). */
static void
reader_request(Reader *r, Stretch *st, int64_t pos, int64_t n)
{
    st->off = st->head;
    st->start = pos;
    st->len = 0;
    st->wanted = n;
    pthread_mutex_lock(&r->mu);
    r->target = st;
    r->has_request = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static int64_t
reader_wait(Reader *r)
{
    int64_t got;
    pthread_mutex_lock(&r->mu);
    while (!r->has_result)
        pthread_cond_wait(&r->cv, &r->mu);
    r->has_result = 0;
    got = r->got;
    pthread_mutex_unlock(&r->mu);
    return got;
}

static void
reader_stop(Reader *r)
{
    pthread_mutex_lock(&r->mu);
    r->quit = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
}

/* The batch at ``pos`` needs more bytes than st holds: how many from ``pos`` in all (0: it
 * is whole, or its header already says the walk has something to report about it). */
static int64_t
stretch_wants(const Stretch *st, int64_t pos, int64_t max_batch_bytes)
{
    const unsigned char *b = st->mem + st->off + (pos - st->start);
    int64_t held = st->start + st->len - pos, size, total;
    if (held < KL_HEADER_SIZE_UP_TO_MAGIC)
        return KL_RECORD_BATCH_OVERHEAD;
    size = be32(b + KL_V2_LENGTH_OFFSET);
    total = KL_LOG_OVERHEAD + size;
    if (size < KL_RECORD_OVERHEAD_V0 || total > max_batch_bytes + KL_RECORD_BATCH_OVERHEAD)
        return 0;
    if (b[KL_MAGIC_OFFSET] == 2 && held < KL_RECORD_BATCH_OVERHEAD)
        return total > KL_RECORD_BATCH_OVERHEAD ? total : KL_RECORD_BATCH_OVERHEAD;
    return total > held ? total : 0;
}


static int verify_split(int fd, int64_t stop, int64_t soft, int have_prev, int64_t prev_last,
                        int have_base, int64_t segment_base, int gaps, int64_t headers_max,
                        int64_t max_batch_bytes, PyObject *decompress, int64_t chunk,
                        PyThreadState **ts, VProgress *p);

/* The walk over the file ``fd`` from p->pos up to ``stop`` (batches starting before
 * ``soft``).  -1 on a Python error (the GIL released: *ts). */
int
verify_file(int fd, int64_t stop, int64_t soft, int have_prev, int64_t prev_last, int have_base,
            int64_t segment_base, int deep, int gaps, int64_t headers_max,
            int64_t max_batch_bytes, PyObject *decompress, int64_t chunk, int read_ahead,
            PyThreadState **ts, VProgress *p)
{
    Stretch a = {NULL, chunk, 0, 0, 0, 0, 0}, b = {NULL, chunk, 0, 0, 0, 0, 0};
    Stretch *cur = &a, *spare = &b, *t;
    Reader reader;
    int rc = 0, ahead = 0, pending = 0;
    int64_t pos = p->pos, n = stop - pos < chunk ? stop - pos : chunk;

    if (read_ahead && deep && stop - pos > 2 * chunk)
        return verify_split(fd, stop, soft, have_prev, prev_last, have_base, segment_base, gaps,
                            headers_max, max_batch_bytes, decompress, chunk, ts, p);
    if (read_ahead && stop - pos > 2 * chunk && stretch_reserve(&b, chunk) == 0 &&
        reader_start(&reader, fd) == 0)
        ahead = 1;
    stretch_fill(cur, fd, pos, n);
    for (;;) {
        int64_t end = cur->start + cur->len, want, tail;
        if (ahead && !pending && cur->len == cur->wanted && end < stop) {
            reader_request(&reader, spare, end, stop - end < chunk ? stop - end : chunk);
            pending = 1;
        }
        if (end - pos >= KL_HEADER_SIZE_UP_TO_MAGIC) {
            rc = verify_walk(cur->mem + cur->off, cur->start, end, soft < end ? soft : end,
                             have_prev || p->batches, p->batches ? p->last : prev_last, have_base,
                             segment_base, deep, 0, gaps, headers_max, max_batch_bytes, decompress,
                             ts, p);
            pos = p->pos;
            if (rc < 0 || pos >= soft || stop - pos < KL_HEADER_SIZE_UP_TO_MAGIC)
                break;
            want = stretch_wants(cur, pos, max_batch_bytes);
            if (want == 0)
                break; /* something to report: Python's */
        }
        else
            want = KL_RECORD_BATCH_OVERHEAD;
        if (end >= stop || cur->len < cur->wanted)
            break; /* cut by the end, or the file ended short: Python's */
        tail = end - pos;
        if (pending) {
            int64_t got = reader_wait(&reader);
            pending = 0;
            if (tail <= spare->head && spare->start == end) { /* carry the tail in front */
                memcpy(spare->mem + spare->head - tail, cur->mem + cur->off + (pos - cur->start),
                       (size_t)tail);
                spare->off = spare->head - tail;
                spare->start = pos;
                spare->len = tail + got;
                spare->wanted += tail;
                t = cur;
                cur = spare;
                spare = t;
                continue;
            }
        }
        /* larger than a stretch can carry: read it whole now */
        n = want > chunk ? want : chunk;
        stretch_fill(cur, fd, pos, stop - pos < n ? stop - pos : n);
        if (cur->len < KL_HEADER_SIZE_UP_TO_MAGIC)
            break;
    }
    if (ahead) {
        if (pending)
            (void)reader_wait(&reader);
        reader_stop(&reader);
    }
    stretch_free(&a);
    stretch_free(&b);
    return rc;
}

/* ---------------------------------------------------------------------------------
 * The walk over a file split over two threads (issue 49), for a deep walk with a
 * second CPU free: a POSIX thread (the checker) reads the file into stretches and
 * walks them as verify_walk walks without ``deep`` (the framing, the offsets and the
 * CRCs), handing each run of batches it consumed to the caller's thread, which walks
 * that run's records (verify_walk with ``deep``, the CRCs already checked), so the copy
 * from the page cache and the CRCs run beside the records' walk.  What is consumed is
 * exactly what the one-thread walk consumes: the checker stops where a batch has
 * anything but a record fault to say, the records' walk stops at a record fault before
 * it, and its progress is the result.  Stretches live in a ring of SPLIT_SLOTS; one is
 * reused once neither thread holds it (the checker while it reads it or carries a batch
 * cut by its end into the next, the caller while a run in it is unwalked).
 * --------------------------------------------------------------------------------- */
#define SPLIT_SLOTS 4
#define SPLIT_RUNS 8

typedef struct {
    int slot;
    int64_t from, to;
} SplitRun;

typedef struct {
    /* set before the checker starts, read only */
    int fd, gaps, have_prev, have_base;
    int64_t stop, soft, prev_last, segment_base, headers_max, max_batch_bytes, chunk, start;
    /* under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    Stretch slot[SPLIT_SLOTS];
    int held[SPLIT_SLOTS]; /* how many hold each slot: the checker, and runs unwalked */
    SplitRun runs[SPLIT_RUNS];
    int first, count, done, quit;
} Split;

/* A slot no one holds (waiting for one), now held by the checker; -1 when told to quit. */
static int
split_take(Split *sp)
{
    int i;
    pthread_mutex_lock(&sp->mu);
    for (;;) {
        if (sp->quit) {
            pthread_mutex_unlock(&sp->mu);
            return -1;
        }
        for (i = 0; i < SPLIT_SLOTS; i++)
            if (sp->held[i] == 0) {
                sp->held[i] = 1;
                pthread_mutex_unlock(&sp->mu);
                return i;
            }
        pthread_cond_wait(&sp->cv, &sp->mu);
    }
}

static void
split_release(Split *sp, int i)
{
    pthread_mutex_lock(&sp->mu);
    sp->held[i] -= 1;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
}

/* Hand the run [from, to) of slot i to the caller's thread; 0, or -1 when told to quit. */
static int
split_publish(Split *sp, int i, int64_t from, int64_t to)
{
    pthread_mutex_lock(&sp->mu);
    while (sp->count == SPLIT_RUNS && !sp->quit)
        pthread_cond_wait(&sp->cv, &sp->mu);
    if (sp->quit) {
        pthread_mutex_unlock(&sp->mu);
        return -1;
    }
    sp->runs[(sp->first + sp->count) % SPLIT_RUNS] = (SplitRun){i, from, to};
    sp->count += 1;
    sp->held[i] += 1;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    return 0;
}

/* The checker: verify_file's loop, without ``deep``, handing over runs. */
static void *
split_main(void *arg)
{
    Split *sp = (Split *)arg;
    VProgress q = {sp->start, 0, 0, 0};
    int64_t pos = sp->start, n = sp->stop - pos < sp->chunk ? sp->stop - pos : sp->chunk;
    int cur = split_take(sp), next;
    Stretch *st;

    if (cur < 0)
        goto out;
    st = &sp->slot[cur];
    stretch_fill(st, sp->fd, pos, n);
    for (;;) {
        int64_t end = st->start + st->len, want, tail, from = q.pos;
        if (end - pos >= KL_HEADER_SIZE_UP_TO_MAGIC) {
            (void)verify_walk(st->mem + st->off, st->start, end, sp->soft < end ? sp->soft : end,
                              sp->have_prev || q.batches, q.batches ? q.last : sp->prev_last,
                              sp->have_base, sp->segment_base, 0, 0, sp->gaps, sp->headers_max,
                              sp->max_batch_bytes, Py_None, NULL, &q);
            pos = q.pos;
            if (pos > from && split_publish(sp, cur, from, pos) < 0)
                break;
            if (pos >= sp->soft || sp->stop - pos < KL_HEADER_SIZE_UP_TO_MAGIC)
                break;
            want = stretch_wants(st, pos, sp->max_batch_bytes);
            if (want == 0)
                break; /* something to report: Python's */
        }
        else
            want = KL_RECORD_BATCH_OVERHEAD;
        if (end >= sp->stop || st->len < st->wanted)
            break; /* cut by the end, or the file ended short: Python's */
        if ((next = split_take(sp)) < 0)
            break;
        tail = end - pos;
        if (tail <= sp->chunk && want <= tail + sp->chunk) {
            /* carry the tail in front of the next stretch's read */
            Stretch *nx = &sp->slot[next];
            n = sp->stop - end < sp->chunk ? sp->stop - end : sp->chunk;
            if (stretch_reserve(nx, n) != 0) {
                split_release(sp, next);
                break;
            }
            memcpy(nx->mem + nx->head - tail, st->mem + st->off + (pos - st->start), (size_t)tail);
            nx->off = nx->head - tail;
            nx->start = pos;
            nx->wanted = tail + n;
            nx->len = tail + pread_full(sp->fd, nx->mem + nx->head, n, end);
        }
        else { /* larger than a stretch can carry: read it whole */
            n = want > sp->chunk ? want : sp->chunk;
            stretch_fill(&sp->slot[next], sp->fd, pos, sp->stop - pos < n ? sp->stop - pos : n);
        }
        split_release(sp, cur);
        cur = next;
        st = &sp->slot[cur];
        if (st->len < KL_HEADER_SIZE_UP_TO_MAGIC)
            break;
    }
    split_release(sp, cur);
out:
    pthread_mutex_lock(&sp->mu);
    sp->done = 1;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

static int
verify_split(int fd, int64_t stop, int64_t soft, int have_prev, int64_t prev_last, int have_base,
             int64_t segment_base, int gaps, int64_t headers_max, int64_t max_batch_bytes,
             PyObject *decompress, int64_t chunk, PyThreadState **ts, VProgress *p)
{
    Split sp;
    pthread_t thread;
    int i, rc = 0;

    memset(&sp, 0, sizeof sp);
    sp.fd = fd;
    sp.gaps = gaps;
    sp.have_prev = have_prev;
    sp.have_base = have_base;
    sp.stop = stop;
    sp.soft = soft;
    sp.prev_last = prev_last;
    sp.segment_base = segment_base;
    sp.headers_max = headers_max;
    sp.max_batch_bytes = max_batch_bytes;
    sp.chunk = chunk;
    sp.start = p->pos;
    for (i = 0; i < SPLIT_SLOTS; i++)
        sp.slot[i].head = chunk;
    if (pthread_mutex_init(&sp.mu, NULL) != 0)
        return verify_file(fd, stop, soft, have_prev, prev_last, have_base, segment_base, 1, gaps,
                           headers_max, max_batch_bytes, decompress, chunk, 0, ts, p);
    if (pthread_cond_init(&sp.cv, NULL) != 0) {
        pthread_mutex_destroy(&sp.mu);
        return verify_file(fd, stop, soft, have_prev, prev_last, have_base, segment_base, 1, gaps,
                           headers_max, max_batch_bytes, decompress, chunk, 0, ts, p);
    }
    if (pthread_create(&thread, NULL, split_main, &sp) != 0) {
        pthread_cond_destroy(&sp.cv);
        pthread_mutex_destroy(&sp.mu);
        return verify_file(fd, stop, soft, have_prev, prev_last, have_base, segment_base, 1, gaps,
                           headers_max, max_batch_bytes, decompress, chunk, 0, ts, p);
    }
    for (;;) {
        SplitRun run;
        Stretch *st;
        pthread_mutex_lock(&sp.mu);
        while (sp.count == 0 && !sp.done)
            pthread_cond_wait(&sp.cv, &sp.mu);
        if (sp.count == 0) {
            pthread_mutex_unlock(&sp.mu);
            break;
        }
        run = sp.runs[sp.first];
        sp.first = (sp.first + 1) % SPLIT_RUNS;
        sp.count -= 1;
        pthread_cond_broadcast(&sp.cv);
        pthread_mutex_unlock(&sp.mu);
        st = &sp.slot[run.slot];
        rc = verify_walk(st->mem + st->off, st->start, run.to, run.to, have_prev || p->batches,
                         p->batches ? p->last : prev_last, have_base, segment_base, 1, 1, gaps,
                         headers_max, max_batch_bytes, decompress, ts, p);
        split_release(&sp, run.slot);
        if (rc < 0 || p->pos < run.to)
            break; /* a Python error, or a record fault: the walk ends before it */
    }
    pthread_mutex_lock(&sp.mu);
    sp.quit = 1;
    pthread_cond_broadcast(&sp.cv);
    pthread_mutex_unlock(&sp.mu);
    pthread_join(thread, NULL);
    pthread_cond_destroy(&sp.cv);
    pthread_mutex_destroy(&sp.mu);
    for (i = 0; i < SPLIT_SLOTS; i++)
        stretch_free(&sp.slot[i]);
    return rc;
}
