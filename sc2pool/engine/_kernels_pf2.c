/* A distance field's repair after structures closed cells: C twins of the numpy steps of
 * _Layer._repair in sc2pool/engine/terrain/pathing.py (_bad_steps, _sub_graph, _repair_write):
 * the roots of the shortest-path subtrees that changed, the sub-graph of the nodes below them
 * that is solved again (by scipy's dijkstra, whose predecessors on ties decide the paths), and
 * the solved distances and predecessors written back.  Included by _kernels.c after its shared
 * argument getters; tests/engine/test_kernels_pf2.py holds each to its Python twin. */

#define PF2_UNREACHED (-9999) /* terrain/pathing.py's _UNREACHED: scipy's predecessor of an unreached node */

/* ------------------------------------------------------------------ the subtrees' roots */

PyDoc_STRVAR(repair_roots_doc,
"repair_roots(pred, blocked, near, cells, free, w, out) -> int\n\n"
"The roots of a field's repair into ``out`` (int64, at least len(blocked) + len(near) items):\n"
"the ``blocked`` nodes (int64), then those of ``near`` (int64) whose step to their predecessor in\n"
"``pred`` (int32 per node) is no longer an edge (a cell of the step, or one beside a diagonal\n"
"step, not ``free``: bool per cell of a grid ``w`` wide; ``cells``: int64, each node's cell), in\n"
"order; returns how many: numpy.concatenate([blocked, _bad_steps(pred, near, cells, free, w)])\n"
"of sc2pool.engine.terrain.pathing.");

static PyObject *py_repair_roots(PyObject *self, PyObject *args) {
    PyObject *o[6];
    Py_ssize_t w;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOnO:repair_roots", &o[0], &o[1], &o[2], &o[3], &o[4], &w, &o[5])) return NULL;
    const char *fn = "repair_roots";
    kn_bufs b = {.n = 0};
    Py_ssize_t n = 0, nb = 0, nn = 0, size = 0;
    const int *pred = kn_vec(&b, o[0], 'i', KN_ANY, KN_CONTIG, &n, fn, "pred");
    const long long *blocked = pred ? kn_vec(&b, o[1], 'q', KN_ANY, KN_CONTIG, &nb, fn, "blocked") : NULL;
    const long long *near = blocked ? kn_vec(&b, o[2], 'q', KN_ANY, KN_CONTIG, &nn, fn, "near") : NULL;
    const long long *cells = near ? kn_vec(&b, o[3], 'q', n, KN_CONTIG, NULL, fn, "cells") : NULL;
    const unsigned char *free_ = cells ? kn_vec(&b, o[4], '?', KN_ANY, KN_CONTIG, &size, fn, "free") : NULL;
    long long *out = free_ ? kn_vec(&b, o[5], 'q', -(nb + nn) - 1, KN_WRITABLE, NULL, fn, "out") : NULL;
    PyObject *result = NULL;
    if (out == NULL) goto done;
    if (w <= 0 || size % w != 0) {
        PyErr_Format(PyExc_ValueError, "%s: free holds %zd cells, no whole number of rows %zd wide", fn, size, w);
        goto done;
    }
    memcpy(out, blocked, sizeof(long long) * (size_t)nb);
    Py_ssize_t count = nb;
    for (Py_ssize_t i = 0; i < nn; i++) {
        long long v = near[i];
        if (v < 0 || v >= n) {
            PyErr_Format(PyExc_ValueError, "%s: near[%zd] = %lld is not a node", fn, i, v);
            goto done;
        }
        int p = pred[v];
        if (p < 0) continue;
        if (p >= n) {
            PyErr_Format(PyExc_ValueError, "%s: pred[%lld] = %d is not a node", fn, v, p);
            goto done;
        }
        long long a = cells[v], c = cells[p];
        if (a < 0 || a >= size || c < 0 || c >= size) {
            PyErr_Format(PyExc_ValueError, "%s: cells of nodes %lld and %d are not cells of free", fn, v, p);
            goto done;
        }
        long long ay = a / w, ax = a % w, cy = c / w, cx = c % w;
        /* the two cells beside a diagonal step (the step's own cells again for a straight one) */
        if (!(free_[a] && free_[c] && free_[ay * w + cx] && free_[cy * w + ax])) out[count++] = v;
    }
    result = PyLong_FromSsize_t(count);
done:
    kn_release(&b);
    return result;
}

/* ------------------------------------------------------------------ the sub-graph solved again */

PyDoc_STRVAR(sub_graph_doc,
"sub_graph(affected, free, cells, indptr, indices, weights, dist, todo, via_of, sub_indptr, sub_data,\n"
"          sub_indices) -> tuple[int, int]\n\n"
"The compiled twin of sc2pool.engine.terrain.pathing._sub_graph, into given arrays: the nodes to\n"
"solve again (``affected``, bool per node, whose cell (``cells``, int64) is ``free``, bool per\n"
"cell) into ``todo`` (int64), and the sub-graph over them in CSR form (``sub_indptr``, int64;\n"
"``sub_data``, float64; ``sub_indices``, int32): each one's finite edges (of the graph ``indptr``\n"
"(int64), ``indices`` (int32), ``weights`` (float64)) to affected nodes, as local indices, then a\n"
"virtual source (row k) with an edge to each node that an unaffected neighbour of finite\n"
"``dist`` (float64 per node) enters, at the cheapest entry's cost (the first edge of equal\n"
"ones), whose node goes to ``via_of`` (int64; _UNREACHED for the others).  Returns (k, the\n"
"sub-graph's edges).");

static PyObject *py_sub_graph(PyObject *self, PyObject *args) {
    PyObject *o[12];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOO:sub_graph", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10], &o[11]))
        return NULL;
    const char *fn = "sub_graph";
    kn_bufs b = {.n = 0};
    Py_ssize_t n = 0, size = 0, ne = 0, cap_todo = 0, cap_via = 0, cap_ptr = 0, cap_data = 0, cap_idx = 0;
    const unsigned char *affected = kn_vec(&b, o[0], '?', KN_ANY, KN_CONTIG, &n, fn, "affected");
    const unsigned char *free_ = affected ? kn_vec(&b, o[1], '?', KN_ANY, KN_CONTIG, &size, fn, "free") : NULL;
    const long long *cells = free_ ? kn_vec(&b, o[2], 'q', n, KN_CONTIG, NULL, fn, "cells") : NULL;
    const long long *indptr = cells ? kn_vec(&b, o[3], 'q', n + 1, KN_CONTIG, NULL, fn, "indptr") : NULL;
    const int *indices = indptr ? kn_vec(&b, o[4], 'i', KN_ANY, KN_CONTIG, &ne, fn, "indices") : NULL;
    const double *weights = indices ? kn_vec(&b, o[5], 'd', ne, KN_CONTIG, NULL, fn, "weights") : NULL;
    const double *dist = weights ? kn_vec(&b, o[6], 'd', n, KN_CONTIG, NULL, fn, "dist") : NULL;
    long long *todo = dist ? kn_vec(&b, o[7], 'q', KN_ANY, KN_WRITABLE, &cap_todo, fn, "todo") : NULL;
    long long *via_of = todo ? kn_vec(&b, o[8], 'q', KN_ANY, KN_WRITABLE, &cap_via, fn, "via_of") : NULL;
    long long *sub_indptr = via_of ? kn_vec(&b, o[9], 'q', KN_ANY, KN_WRITABLE, &cap_ptr, fn, "sub_indptr") : NULL;
    double *sub_data = sub_indptr ? kn_vec(&b, o[10], 'd', KN_ANY, KN_WRITABLE, &cap_data, fn, "sub_data") : NULL;
    int *sub_indices = sub_data ? kn_vec(&b, o[11], 'i', KN_ANY, KN_WRITABLE, &cap_idx, fn, "sub_indices") : NULL;
    PyObject *result = NULL;
    long long *local = NULL;
    double *entry = NULL;
    if (sub_indices == NULL) goto done;
    local = malloc(sizeof(long long) * ((size_t)n + 1));
    if (local == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t k = 0, m = 0;
    for (Py_ssize_t v = 0; v < n; v++) {
        local[v] = -1;
        if (!affected[v]) continue;
        if (cells[v] < 0 || cells[v] >= size) {
            PyErr_Format(PyExc_ValueError, "%s: cells[%zd] = %lld is not a cell of free", fn, v, cells[v]);
            goto done;
        }
        if (!free_[cells[v]]) continue;
        if (k >= cap_todo || k >= cap_via) {
            PyErr_Format(PyExc_ValueError, "%s: todo and via_of hold too few items", fn);
            goto done;
        }
        local[v] = k;
        todo[k++] = v;
    }
    if (k + 2 > cap_ptr) {
        PyErr_Format(PyExc_ValueError, "%s: sub_indptr holds %zd items where %zd are needed", fn, cap_ptr, k + 2);
        goto done;
    }
    entry = malloc(sizeof(double) * ((size_t)k + 1)); /* each node's cheapest entry cost (its via_of says if any) */
    if (entry == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    sub_indptr[0] = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        long long v = todo[i], e0 = indptr[v], e1 = indptr[v + 1];
        if (e0 < 0 || e1 < e0 || e1 > ne) {
            PyErr_Format(PyExc_ValueError, "%s: indptr[%lld:%lld + 2] is not a range of indices", fn, v, v);
            goto done;
        }
        via_of[i] = PF2_UNREACHED;
        entry[i] = INFINITY;
        for (long long e = e0; e < e1; e++) {
            double wt = weights[e];
            if (!isfinite(wt)) continue;
            int d = indices[e];
            if (d < 0 || d >= n) {
                PyErr_Format(PyExc_ValueError, "%s: indices[%lld] = %d is not a node", fn, e, d);
                goto done;
            }
            if (affected[d]) {
                if (m >= cap_data || m >= cap_idx) {
                    PyErr_Format(PyExc_ValueError, "%s: sub_data and sub_indices hold too few items", fn);
                    goto done;
                }
                sub_data[m] = wt;
                sub_indices[m++] = (int)local[d];
            } else if (isfinite(dist[d])) {
                /* (numpy's sort puts NaN last: a number replaces it) */
                double cand = dist[d] + wt, best = entry[i];
                if (via_of[i] == PF2_UNREACHED || cand < best || (isnan(best) && !isnan(cand))) {
                    entry[i] = cand;
                    via_of[i] = d;
                }
            }
        }
        sub_indptr[i + 1] = m;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        if (via_of[i] == PF2_UNREACHED) continue;
        if (m >= cap_data || m >= cap_idx) {
            PyErr_Format(PyExc_ValueError, "%s: sub_data and sub_indices hold too few items", fn);
            goto done;
        }
        sub_data[m] = entry[i];
        sub_indices[m++] = (int)i;
    }
    sub_indptr[k + 1] = m;
    result = Py_BuildValue("(nn)", k, m);
done:
    free(local);
    free(entry);
    kn_release(&b);
    return result;
}

/* ------------------------------------------------------------------ the solved nodes written back */

PyDoc_STRVAR(repair_write_doc,
"repair_write(todo, d, p, via_of, limit, dist, pred) -> None\n\n"
"The compiled twin of sc2pool.engine.terrain.pathing._repair_write: the sub-graph's distances\n"
"``d`` (float64) and predecessors ``p`` (int32; the virtual source k's row: through ``via_of``,\n"
"int64 per node) of the k nodes ``todo`` (int64) into the field's ``dist`` (float64) and ``pred``\n"
"(int32); with a finite ``limit``, the nodes beyond it unknown (inf, _UNREACHED).");

static PyObject *py_repair_write(PyObject *self, PyObject *args) {
    PyObject *o[6];
    double limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOdOO:repair_write", &o[0], &o[1], &o[2], &o[3], &limit, &o[4], &o[5])) return NULL;
    const char *fn = "repair_write";
    kn_bufs b = {.n = 0};
    Py_ssize_t k = 0, n = 0;
    const long long *todo = kn_vec(&b, o[0], 'q', KN_ANY, KN_CONTIG, &k, fn, "todo");
    const double *d = todo ? kn_vec(&b, o[1], 'd', -k - 1, KN_CONTIG, NULL, fn, "d") : NULL;
    const int *p = d ? kn_vec(&b, o[2], 'i', -k - 1, KN_CONTIG, NULL, fn, "p") : NULL;
    const long long *via_of = p ? kn_vec(&b, o[3], 'q', k, KN_CONTIG, NULL, fn, "via_of") : NULL;
    double *dist = via_of ? kn_vec(&b, o[4], 'd', KN_ANY, KN_WRITABLE, &n, fn, "dist") : NULL;
    int *pred = dist ? kn_vec(&b, o[5], 'i', n, KN_WRITABLE, NULL, fn, "pred") : NULL;
    PyObject *result = NULL;
    if (pred == NULL) goto done;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (todo[i] < 0 || todo[i] >= n) {
            PyErr_Format(PyExc_ValueError, "%s: todo[%zd] = %lld is not a node", fn, i, todo[i]);
            goto done;
        }
    }
    int bounded = isfinite(limit);
    for (Py_ssize_t i = 0; i < k; i++) {
        long long v = todo[i];
        int pl = p[i];
        dist[v] = d[i];
        /* (the int64 node or _UNREACHED cast to the int32 column, as numpy's assignment casts) */
        pred[v] = (int)(pl == k ? via_of[i] : pl >= 0 ? todo[pl < k - 1 ? pl : k - 1] : PF2_UNREACHED);
        if (bounded && d[i] > limit) { /* beyond its bound a path may have left the searched area */
            dist[v] = INFINITY;
            pred[v] = PF2_UNREACHED;
        }
    }
    result = Py_NewRef(Py_None);
done:
    kn_release(&b);
    return result;
}
