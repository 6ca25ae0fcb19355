/* The path finder's shortest-path solves: a C twin of scipy.sparse.csgraph.dijkstra as
 * _Layer.field and _Layer._repair in sc2pool/engine/terrain/pathing.py call it (a directed graph
 * in CSR form, one source, with predecessors, with or without a limit).  Included by _kernels.c
 * after its shared argument getters; tests/engine/test_kernels_dij.py holds it to scipy's.
 *
 * The game's paths follow the predecessors, so ties between equally short paths must be broken as
 * scipy breaks them.  scipy's dijkstra (from scipy 1.16 on) keeps a queue of (distance, node)
 * entries: a node is pushed again each time its distance drops, an entry popped after its node's
 * distance dropped below it is skipped, and the queue pops the least distance first and, of equal
 * distances, the greatest node (it orders the pairs (-distance, node) in a max-heap).  A node's
 * distance only drops, so no two entries are equal, and the order in which entries leave the
 * queue is fixed by that ordering alone, whichever heap holds them: the binary heap here pops in
 * the same order and so relaxes the same edges in the same order.  A relaxation takes the popped
 * distance plus the edge's weight, keeps it when it is at most the limit and below the node's
 * distance so far (so an infinite weight never reaches a node), and makes the popped node the
 * predecessor. */

#define DIJ_UNREACHED (-9999) /* scipy's predecessor of a node it did not reach */
#define DIJ_FIRST_CAP 256     /* queue entries allocated at first (doubled when full) */

typedef struct {
    double d;
    int v;
} dij_entry;

/* Whether entry a leaves the queue before entry b: the lesser distance, of equal ones the greater node. */
static inline int dij_before(dij_entry a, dij_entry b) { return a.d < b.d || (a.d == b.d && a.v > b.v); }

typedef struct {
    dij_entry *e;
    Py_ssize_t n, cap;
} dij_queue;

/* Push an entry: 0, or -1 with MemoryError set. */
static int dij_push(dij_queue *q, double d, int v) {
    if (q->n == q->cap) {
        Py_ssize_t cap = q->cap ? 2 * q->cap : DIJ_FIRST_CAP;
        dij_entry *e = realloc(q->e, sizeof(dij_entry) * (size_t)cap);
        if (e == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        q->e = e;
        q->cap = cap;
    }
    dij_entry x = {d, v};
    Py_ssize_t i = q->n++;
    while (i > 0) { /* sift up */
        Py_ssize_t parent = (i - 1) / 2;
        if (!dij_before(x, q->e[parent])) break;
        q->e[i] = q->e[parent];
        i = parent;
    }
    q->e[i] = x;
    return 0;
}

/* Pop the entry that leaves first (the queue is not empty).  The hole left at the root moves down
 * to a leaf along the children that leave first, and the last entry is sifted up from there: it
 * is among the latest to leave, so it seldom climbs, and each level costs one comparison. */
static dij_entry dij_pop(dij_queue *q) {
    dij_entry top = q->e[0], x = q->e[--q->n];
    dij_entry *e = q->e;
    Py_ssize_t n = q->n, i = 0;
    if (n == 0) return top;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && dij_before(e[c + 1], e[c])) c++;
        e[i] = e[c];
        i = c;
    }
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (!dij_before(x, e[parent])) break;
        e[i] = e[parent];
        i = parent;
    }
    e[i] = x;
    return top;
}

/* The solve from `source` over the `n` nodes of the graph (indptr, indices, data) with `ne` edges
 * into dist and pred: 0, or -1 with an exception set (a ValueError naming `fn` for an edge or
 * a row of the graph that is not one). */
static int dij_solve(const long long *indptr, const int *indices, const double *data, Py_ssize_t ne, Py_ssize_t n,
                     int source, double limit, double *dist, int *pred, const char *fn) {
    for (Py_ssize_t i = 0; i < n; i++) {
        dist[i] = INFINITY;
        pred[i] = DIJ_UNREACHED;
    }
    dist[source] = 0.0;
    dij_queue q = {NULL, 0, 0};
    int rc = dij_push(&q, 0.0, source);
    while (rc == 0 && q.n) {
        dij_entry top = dij_pop(&q);
        int v = top.v;
        if (dist[v] < top.d) continue; /* its distance dropped since: scanned from that entry */
        long long e0 = indptr[v], e1 = indptr[v + 1];
        if (e0 < 0 || e1 < e0 || e1 > ne) {
            PyErr_Format(PyExc_ValueError, "%s: indptr[%d:%d + 2] is not a range of the %zd edges", fn, v, v, ne);
            rc = -1;
            break;
        }
        for (long long e = e0; e < e1; e++) {
            int j = indices[e];
            double w = data[e];
            if ((unsigned int)j >= (unsigned int)n) { /* (n <= INT_MAX: a negative j too) */
                PyErr_Format(PyExc_ValueError, "%s: indices[%lld] = %d is not a node (there are %zd)", fn, e, j, n);
                rc = -1;
                break;
            }
            if (!(w >= 0.0)) {
                PyErr_Format(PyExc_ValueError, "%s: data[%lld] is negative or NaN", fn, e);
                rc = -1;
                break;
            }
            double next = top.d + w;
            if (next <= limit && dist[j] > next) {
                dist[j] = next;
                pred[j] = v;
                if (dij_push(&q, next, j) < 0) {
                    rc = -1;
                    break;
                }
            }
        }
    }
    free(q.e);
    return rc;
}

PyDoc_STRVAR(dijkstra_csr_doc,
"dijkstra_csr(indptr, indices, data, source, limit, dist, pred) -> None\n\n"
"The shortest paths from ``source`` over the directed graph in CSR form ``indptr`` (int64, n + 1\n"
"items), ``indices`` (int32), ``data`` (float64, non-negative; inf: no edge), searched no farther\n"
"than ``limit`` (inf: everywhere), into ``dist`` (float64, n items; inf where not reached) and\n"
"``pred`` (int32, n items; each node's predecessor, -9999 where none): what\n"
"scipy.sparse.csgraph.dijkstra(csr_matrix((data, indices, indptr)), directed=True,\n"
"indices=source, return_predecessors=True, limit=limit) returns (scipy >= 1.16), ties included.");

static PyObject *py_dijkstra_csr(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t source;
    double limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOndOO:dijkstra_csr", &o[0], &o[1], &o[2], &source, &limit, &o[3], &o[4]))
        return NULL;
    const char *fn = "dijkstra_csr";
    kn_bufs b = {.n = 0};
    Py_ssize_t n = 0, ne = 0;
    double *dist = kn_vec(&b, o[3], 'd', KN_ANY, KN_WRITABLE, &n, fn, "dist");
    int *pred = dist ? kn_vec(&b, o[4], 'i', n, KN_WRITABLE, NULL, fn, "pred") : NULL;
    const long long *indptr = pred ? kn_vec(&b, o[0], 'q', n + 1, KN_CONTIG, NULL, fn, "indptr") : NULL;
    const int *indices = indptr ? kn_vec(&b, o[1], 'i', KN_ANY, KN_CONTIG, &ne, fn, "indices") : NULL;
    const double *data = indices ? kn_vec(&b, o[2], 'd', ne, KN_CONTIG, NULL, fn, "data") : NULL;
    PyObject *result = NULL;
    if (data == NULL) goto done;
    if (n > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: dist holds %zd nodes, more than int32 predecessors index", fn, n);
        goto done;
    }
    if (source < 0 || source >= n) {
        PyErr_Format(PyExc_ValueError, "%s: source %zd is not a node (there are %zd)", fn, source, n);
        goto done;
    }
    if (!(limit >= 0.0)) {
        PyErr_Format(PyExc_ValueError, "%s: limit must be >= 0", fn);
        goto done;
    }
    if (dij_solve(indptr, indices, data, ne, n, (int)source, limit, dist, pred, fn) == 0) result = Py_NewRef(Py_None);
done:
    kn_release(&b);
    return result;
}
