/* Compiled twins of the collision system's loops (sc2pool/engine/sim/systems/collision.py):
 * the sweep that lists candidate pairs, the test whether the pair list still holds, the choice of
 * the pairs a loop's separation looks at (and of those joining it later), the touching pairs, the
 * give-way weights and shares, the first pushes and the relaxation passes.  Included by
 * _kernels.c; tests/engine/test_kernels_collision.py holds each to its Python twin.
 *
 * The positions come as the unit store's flat view ``u.xy`` (x of every unit, then y), pairs as
 * indices into it laid out in four rows (a, a + n, b, b + n), as the Python code lays them out.
 * Every sum is taken in the order numpy takes it (np.bincount adds in index order, from 0.0).
 */
#include <stdint.h>

#define COLL_BUFS 16 /* arrays one kernel borrows at most */

/* The buffers a kernel borrowed, released together on every way out. */
typedef struct {
    Py_buffer v[COLL_BUFS];
    int n;
} coll_bufs;

static void coll_release(coll_bufs *b) {
    while (b->n) PyBuffer_Release(&b->v[--b->n]);
}

/* Borrow `obj` as a C-contiguous array of `t` ('d' float64, 'q' int64, '?' bool) holding `n`
 * items (n < 0: any number, told in *len); 0 with a ValueError naming `what` otherwise. */
static int coll_get(coll_bufs *b, PyObject *obj, char t, Py_ssize_t n, int writable, const char *what,
                    void **data, Py_ssize_t *len) {
    const char *tname = t == 'd' ? "float64" : t == 'q' ? "int64" : "bool";
    Py_buffer *v = &b->v[b->n];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (b->n >= COLL_BUFS || PyObject_GetBuffer(obj, v, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous%s %s array", what,
                     writable ? " writable" : "", tname);
        return 0;
    }
    const char *f = v->format;
    if (*f == '@' || *f == '=' || *f == '<') f++;
    int ok = f[0] != '\0' && f[1] == '\0' && v->itemsize == (t == '?' ? 1 : 8) &&
             (t == 'q' ? (*f == 'q' || *f == 'l') : *f == t);
    if (!ok) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous%s %s array", what,
                     writable ? " writable" : "", tname);
        return 0;
    }
    Py_ssize_t items = v->len / v->itemsize;
    if (n >= 0 && items != n) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s holds %zd items where %zd are needed", what, items, n);
        return 0;
    }
    b->n++;
    *data = v->buf;
    if (len != NULL) *len = items;
    return 1;
}

/* Borrow `obj` as a one-dimensional int64 array of `n` items, strided or not (the unit store's
 * integer columns are rows of a Fortran-ordered block): *stride is in bytes; 0 with a ValueError
 * naming `what` otherwise. */
static int coll_get_column(coll_bufs *b, PyObject *obj, Py_ssize_t n, const char *what, const char **data,
                           Py_ssize_t *stride) {
    Py_buffer *v = &b->v[b->n];
    if (b->n >= COLL_BUFS || PyObject_GetBuffer(obj, v, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a one-dimensional int64 array", what);
        return 0;
    }
    const char *f = v->format;
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (v->ndim != 1 || v->itemsize != 8 || !(*f == 'q' || *f == 'l') || f[1] != '\0') {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s must be a one-dimensional int64 array", what);
        return 0;
    }
    if (v->shape[0] != n) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s holds %zd items where %zd are needed", what, v->shape[0], n);
        return 0;
    }
    b->n++;
    *data = (const char *)v->buf;
    *stride = v->strides[0];
    return 1;
}

/* A number (*scalar set, *arr NULL) or an array of `n` float64 values (*arr set): the pairs'
 * summed radii and squared reaches are one float when every collidable unit has one radius. */
static int coll_scalar_or(coll_bufs *b, PyObject *obj, Py_ssize_t n, const char *what,
                          double *scalar, const double **arr) {
    *arr = NULL;
    if (PyFloat_Check(obj) || PyLong_Check(obj)) {
        *scalar = PyFloat_AsDouble(obj);
        return !(*scalar == -1.0 && PyErr_Occurred());
    }
    void *data;
    if (!coll_get(b, obj, 'd', n, 0, what, &data, NULL)) return 0;
    *arr = (const double *)data;
    return 1;
}

/* 1 when every index lies in [0, hi); else 0 with a ValueError naming `what`. */
static int coll_in_range(const int64_t *idx, Py_ssize_t m, int64_t hi, const char *what) {
    for (Py_ssize_t i = 0; i < m; i++) {
        if (idx[i] < 0 || idx[i] >= hi) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %lld lies outside [0, %lld)", what, i,
                         (long long)idx[i], (long long)hi);
            return 0;
        }
    }
    return 1;
}

#define COLL_AT(arr, scalar, i) ((arr) != NULL ? (arr)[i] : (scalar))

/* numpy's order of floats (its sorts and searchsorted): NaN after everything else. */
static inline int coll_lt(double a, double b) { return a < b || (b != b && a == a); }

/* Stable merge sort of the positions `perm` (k of them) by `key`, with `tmp` of k items. */
static void coll_sort(int64_t *perm, int64_t *tmp, const double *key, Py_ssize_t k) {
    for (Py_ssize_t width = 1; width < k; width *= 2) {
        for (Py_ssize_t lo = 0; lo < k; lo += 2 * width) {
            Py_ssize_t mid = lo + width < k ? lo + width : k;
            Py_ssize_t hi = lo + 2 * width < k ? lo + 2 * width : k;
            Py_ssize_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = coll_lt(key[perm[j]], key[perm[i]]) ? perm[j++] : perm[i++];
            while (i < mid) tmp[o++] = perm[i++];
            while (j < hi) tmp[o++] = perm[j++];
        }
        memcpy(perm, tmp, sizeof(int64_t) * (size_t)k);
    }
}

PyDoc_STRVAR(sweep_pairs_doc,
"sweep_pairs(x, y, rc, c, reach, r_common, extra) -> bytearray\n\n"
"Candidate pairs of the rows ``c`` whose edges may be within ``extra``, as int64 rows a then b:\n"
"the compiled twin of the sweep in sc2pool.engine.sim.systems.collision.Collision.pairs.\n"
"``x``, ``y``: the float64 columns; ``rc``: the radii of the rows ``c``; ``reach``: the sweep's\n"
"x reach (2 * max radius + extra); ``r_common``: the radius every row of ``c`` has, or NaN.");

static PyObject *py_sweep_pairs(PyObject *self, PyObject *args) {
    PyObject *x_obj, *y_obj, *r_obj, *c_obj;
    double reach, rc, extra;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOddd:sweep_pairs", &x_obj, &y_obj, &r_obj, &c_obj, &reach, &rc, &extra))
        return NULL;
    if (reach < 0.0) {
        PyErr_SetString(PyExc_ValueError, "sweep_pairs: reach must not be negative");
        return NULL;
    }
    coll_bufs b = {.n = 0};
    PyObject *out = NULL;
    int64_t *perm = NULL;
    double *sx = NULL;
    void *xp, *yp, *rp, *cp;
    Py_ssize_t n, k;
    if (!coll_get(&b, x_obj, 'd', -1, 0, "sweep_pairs: x", &xp, &n) ||
        !coll_get(&b, y_obj, 'd', n, 0, "sweep_pairs: y", &yp, NULL) ||
        !coll_get(&b, c_obj, 'q', -1, 0, "sweep_pairs: c", &cp, &k) ||
        !coll_get(&b, r_obj, 'd', k, 0, "sweep_pairs: rc", &rp, NULL) ||
        !coll_in_range((const int64_t *)cp, k, n, "sweep_pairs: c"))
        goto done;
    {
        const double *x = (const double *)xp, *y = (const double *)yp, *r = (const double *)rp;
        const int64_t *c = (const int64_t *)cp;
        /* the rows in x order (ties in the order of c: a stable sort), with their x, y, radius */
        perm = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * k + 1));
        sx = (double *)malloc(sizeof(double) * (size_t)(4 * k + 1));
        if (perm == NULL || sx == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < k; i++) {
            perm[i] = i;
            sx[i] = x[c[i]];
        }
        coll_sort(perm, perm + k, sx, k);
        int64_t *s = perm + k;
        double *xs = sx + k, *ys = sx + 2 * k, *rs = sx + 3 * k;
        for (Py_ssize_t i = 0; i < k; i++) {
            s[i] = c[perm[i]];
            xs[i] = x[s[i]];
            ys[i] = y[s[i]];
            rs[i] = r[perm[i]];
        }
        int common = rc == rc;
        double bound_c = rc + rc + extra;
        /* each unit with the following ones whose x is within reach (as searchsorted finds them,
         * side right), kept where the y gap fits: counted first, then written */
        Py_ssize_t total = 0;
        for (int pass = 0; pass < 2; pass++) {
            int64_t *pa = NULL, *pb = NULL;
            if (pass) {
                out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * 2 * total);
                if (out == NULL) goto done;
                pa = (int64_t *)PyByteArray_AS_STRING(out);
                pb = pa + total;
            }
            Py_ssize_t q = 0;
            for (Py_ssize_t i = 0; i < k; i++) {
                double key = xs[i] + reach;
                for (Py_ssize_t j = i + 1; j < k && !coll_lt(key, xs[j]); j++) {
                    double gap = fabs(ys[i] - ys[j]);
                    if (gap <= (common ? bound_c : rs[i] + rs[j] + extra)) {
                        if (pass) {
                            pa[q] = s[i];
                            pb[q] = s[j];
                        }
                        q++;
                    }
                }
            }
            total = q;
        }
    }
done:
    free(perm);
    free(sx);
    coll_release(&b);
    return out;
}

PyDoc_STRVAR(moved_apart_doc,
"moved_apart(xy, ref_idx, ref_xy, lim_axis, lim_sum) -> bool\n\n"
"Whether some unit moved along one axis by more than sqrt(``lim_axis``) and some unit by more\n"
"than sqrt(``lim_sum``) since the pair list was built: the compiled twin of the test in\n"
"sc2pool.engine.sim.systems.collision.Collision.near_pairs.  ``ref_idx``: the reference units'\n"
"indices into ``xy`` (x rows, then y rows); ``ref_xy``: their positions then.");

static PyObject *py_moved_apart(PyObject *self, PyObject *args) {
    PyObject *xy_obj, *idx_obj, *ref_obj;
    double lim_axis, lim_sum;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOdd:moved_apart", &xy_obj, &idx_obj, &ref_obj, &lim_axis, &lim_sum))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *xyp, *ip, *rp;
    Py_ssize_t n2, k2;
    if (!coll_get(&b, xy_obj, 'd', -1, 0, "moved_apart: xy", &xyp, &n2) ||
        !coll_get(&b, idx_obj, 'q', -1, 0, "moved_apart: ref_idx", &ip, &k2) ||
        !coll_in_range((const int64_t *)ip, k2, n2, "moved_apart: ref_idx") ||
        !coll_get(&b, ref_obj, 'd', k2, 0, "moved_apart: ref_xy", &rp, NULL))
        goto done;
    if (k2 % 2) {
        PyErr_SetString(PyExc_ValueError, "moved_apart: ref_idx must hold two rows of one length");
        goto done;
    }
    {
        const double *xy = (const double *)xyp, *ref = (const double *)rp;
        const int64_t *idx = (const int64_t *)ip;
        Py_ssize_t k = k2 / 2;
        int axis = 0, sum = 0;
        for (Py_ssize_t i = 0; i < k && !(axis && sum); i++) {
            double dx = xy[idx[i]] - ref[i], dy = xy[idx[k + i]] - ref[k + i];
            dx *= dx;
            dy *= dy;
            axis |= dx > lim_axis || dy > lim_axis;
            sum |= dx + dy > lim_sum;
        }
        ret = PyBool_FromLong(axis && sum);
    }
done:
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(active_pairs_doc,
"active_pairs(xy, idx4, reach2, rr, io, fo) -> int\n\n"
"The pairs of the pair list (``idx4``: rows a, a + n, b, b + n into ``xy``) whose squared\n"
"distance is below ``reach2``: the compiled twin of the start of\n"
"sc2pool.engine.sim.systems.collision.Collision.separate.  Returns their number m and writes\n"
"``io`` (int64, 5 p) with their numbers in the list, then their four index rows, and ``fo``\n"
"(float64, 5 p) with rows dx, dy, distance, ``rr`` less the distance, and ``rr`` (the summed\n"
"radii; ``reach2`` and ``rr`` are one float or one value per pair), each row m long.");

static PyObject *py_active_pairs(PyObject *self, PyObject *args) {
    PyObject *xy_obj, *idx_obj, *reach_obj, *rr_obj, *io_obj, *fo_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:active_pairs", &xy_obj, &idx_obj, &reach_obj, &rr_obj, &io_obj, &fo_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *xyp, *ip, *iop, *fop;
    Py_ssize_t n2, p4;
    double reach_s = 0.0, rr_s = 0.0;
    const double *reach_a, *rr_a;
    if (!coll_get(&b, xy_obj, 'd', -1, 0, "active_pairs: xy", &xyp, &n2) ||
        !coll_get(&b, idx_obj, 'q', -1, 0, "active_pairs: idx4", &ip, &p4))
        goto done;
    if (p4 % 4) {
        PyErr_SetString(PyExc_ValueError, "active_pairs: idx4 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t p = p4 / 4;
    if (!coll_in_range((const int64_t *)ip, p4, n2, "active_pairs: idx4") ||
        !coll_scalar_or(&b, reach_obj, p, "active_pairs: reach2", &reach_s, &reach_a) ||
        !coll_scalar_or(&b, rr_obj, p, "active_pairs: rr", &rr_s, &rr_a) ||
        !coll_get(&b, io_obj, 'q', 5 * p, 1, "active_pairs: io", &iop, NULL) ||
        !coll_get(&b, fo_obj, 'd', 5 * p, 1, "active_pairs: fo", &fop, NULL))
        goto done;
    {
        const double *xy = (const double *)xyp;
        const int64_t *idx = (const int64_t *)ip;
        int64_t *io = (int64_t *)iop;
        double *fo = (double *)fop;
        Py_ssize_t m = 0;
        for (Py_ssize_t i = 0; i < p; i++) {
            double dx = xy[idx[i]] - xy[idx[2 * p + i]], dy = xy[idx[p + i]] - xy[idx[3 * p + i]];
            if (dx * dx + dy * dy < COLL_AT(reach_a, reach_s, i)) io[m++] = i;
        }
        for (Py_ssize_t j = 0; j < m; j++) {
            int64_t i = io[j];
            double dx = xy[idx[i]] - xy[idx[2 * p + i]], dy = xy[idx[p + i]] - xy[idx[3 * p + i]];
            double d = sqrt(dx * dx + dy * dy), rr = COLL_AT(rr_a, rr_s, i);
            for (int r = 0; r < 4; r++) io[(r + 1) * m + j] = idx[r * p + i];
            fo[j] = dx;
            fo[m + j] = dy;
            fo[2 * m + j] = d;
            fo[3 * m + j] = rr - d;
            fo[4 * m + j] = rr;
        }
        ret = PyLong_FromSsize_t(m);
    }
done:
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(touching_pairs_doc,
"touching_pairs(xy, idx2, rr, slop, rows, vec) -> int\n\n"
"The pairs ``idx2`` (four index rows into ``xy``) within ``slop`` of touching (``rr``: their\n"
"radii summed, one float or one per pair), both ways round: the compiled twin of\n"
"sc2pool.engine.sim.systems.collision.Collision.touching.  Returns their number q and writes\n"
"``rows`` (int64, 4 p) with the rows (source, other), 2 q each, and ``vec`` (float64, 6 p) with\n"
"x, y from the source to the other and half the squared length, 2 q each.");

static PyObject *py_touching_pairs(PyObject *self, PyObject *args) {
    PyObject *xy_obj, *idx_obj, *rr_obj, *rows_obj, *vec_obj;
    double slop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOdOO:touching_pairs", &xy_obj, &idx_obj, &rr_obj, &slop, &rows_obj, &vec_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *xyp, *ip, *rop, *vop;
    Py_ssize_t n2, p4;
    double rr_s = 0.0;
    const double *rr_a;
    if (!coll_get(&b, xy_obj, 'd', -1, 0, "touching_pairs: xy", &xyp, &n2) ||
        !coll_get(&b, idx_obj, 'q', -1, 0, "touching_pairs: idx2", &ip, &p4))
        goto done;
    if (p4 % 4) {
        PyErr_SetString(PyExc_ValueError, "touching_pairs: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t p = p4 / 4;
    if (!coll_in_range((const int64_t *)ip, p4, n2, "touching_pairs: idx2") ||
        !coll_scalar_or(&b, rr_obj, p, "touching_pairs: rr", &rr_s, &rr_a) ||
        !coll_get(&b, rows_obj, 'q', 4 * p, 1, "touching_pairs: rows", &rop, NULL) ||
        !coll_get(&b, vec_obj, 'd', 6 * p, 1, "touching_pairs: vec", &vop, NULL))
        goto done;
    {
        const double *xy = (const double *)xyp;
        const int64_t *idx = (const int64_t *)ip;
        int64_t *rows = (int64_t *)rop;
        double *vec = (double *)vop;
        /* the touching pairs' numbers first (in rows), then each row laid out 2 q long */
        Py_ssize_t q = 0;
        for (Py_ssize_t i = 0; i < p; i++) {
            double dx = xy[idx[i]] - xy[idx[2 * p + i]], dy = xy[idx[p + i]] - xy[idx[3 * p + i]];
            double reach = COLL_AT(rr_a, rr_s, i) + slop;
            if (dx * dx + dy * dy <= reach * reach) rows[q++] = i;
        }
        for (Py_ssize_t j = 0; j < q; j++) {
            int64_t i = rows[j];
            double dx = xy[idx[i]] - xy[idx[2 * p + i]], dy = xy[idx[p + i]] - xy[idx[3 * p + i]];
            double half = (dx * dx + dy * dy) * 0.5;
            rows[j] = rows[3 * q + j] = idx[i];
            rows[q + j] = rows[2 * q + j] = idx[2 * p + i];
            vec[j] = -dx;
            vec[q + j] = dx;
            vec[2 * q + j] = -dy;
            vec[3 * q + j] = dy;
            vec[4 * q + j] = vec[5 * q + j] = half;
        }
        ret = PyLong_FromSsize_t(q);
    }
done:
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(join_overlapping_doc,
"join_overlapping(xy, idx4, over2, rr, act, io, fo) -> int\n\n"
"The pairs of the pair list (``idx4``) closer than ``over2`` (squared) join the pairs ``act``\n"
"(their numbers in the list, ascending): the compiled twin of one extra round's choice in\n"
"sc2pool.engine.sim.systems.collision.Collision.separate.  Returns 0 when no pair joins, else\n"
"the number m of pairs now held, and writes ``io`` (int64, 5 p) with their numbers, then their\n"
"four index rows, and ``fo`` (float64, p) with their ``rr``, each row m long.");

static PyObject *py_join_overlapping(PyObject *self, PyObject *args) {
    PyObject *xy_obj, *idx_obj, *over_obj, *rr_obj, *act_obj, *io_obj, *fo_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOO:join_overlapping", &xy_obj, &idx_obj, &over_obj, &rr_obj, &act_obj,
                          &io_obj, &fo_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    unsigned char *held = NULL;
    void *xyp, *ip, *ap, *iop, *fop;
    Py_ssize_t n2, p4, na;
    double over_s = 0.0, rr_s = 0.0;
    const double *over_a, *rr_a;
    if (!coll_get(&b, xy_obj, 'd', -1, 0, "join_overlapping: xy", &xyp, &n2) ||
        !coll_get(&b, idx_obj, 'q', -1, 0, "join_overlapping: idx4", &ip, &p4))
        goto done;
    if (p4 % 4) {
        PyErr_SetString(PyExc_ValueError, "join_overlapping: idx4 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t p = p4 / 4;
    if (!coll_in_range((const int64_t *)ip, p4, n2, "join_overlapping: idx4") ||
        !coll_scalar_or(&b, over_obj, p, "join_overlapping: over2", &over_s, &over_a) ||
        !coll_scalar_or(&b, rr_obj, p, "join_overlapping: rr", &rr_s, &rr_a) ||
        !coll_get(&b, act_obj, 'q', -1, 0, "join_overlapping: act", &ap, &na) ||
        !coll_in_range((const int64_t *)ap, na, p, "join_overlapping: act") ||
        !coll_get(&b, io_obj, 'q', 5 * p, 1, "join_overlapping: io", &iop, NULL) ||
        !coll_get(&b, fo_obj, 'd', p, 1, "join_overlapping: fo", &fop, NULL))
        goto done;
    held = (unsigned char *)calloc((size_t)p + 1, 1);
    if (held == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const double *xy = (const double *)xyp;
        const int64_t *idx = (const int64_t *)ip, *act = (const int64_t *)ap;
        int64_t *io = (int64_t *)iop;
        double *fo = (double *)fop;
        for (Py_ssize_t j = 0; j < na; j++) held[act[j]] = 1;
        int fresh = 0;
        for (Py_ssize_t i = 0; i < p; i++) {
            double dx = xy[idx[i]] - xy[idx[2 * p + i]], dy = xy[idx[p + i]] - xy[idx[3 * p + i]];
            if (dx * dx + dy * dy < COLL_AT(over_a, over_s, i) && !held[i]) {
                held[i] = 1;
                fresh = 1;
            }
        }
        Py_ssize_t m = 0;
        if (fresh) {
            for (Py_ssize_t i = 0; i < p; i++)
                if (held[i]) io[m++] = i;
            for (Py_ssize_t j = 0; j < m; j++) {
                int64_t i = io[j];
                for (int r = 0; r < 4; r++) io[(r + 1) * m + j] = idx[r * p + i];
                fo[j] = COLL_AT(rr_a, rr_s, i);
            }
        }
        ret = PyLong_FromSsize_t(m);
    }
done:
    free(held);
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(pair_shares_doc,
"pair_shares(idx2, w, owner, steer, w_moving, out) -> None\n\n"
"Writes unit a's share of each pair's overlap and the two give-way weights as used into the\n"
"rows of ``out`` (float64, 3 x m): the compiled twin of\n"
"sc2pool.engine.sim.systems.collision.Collision._shares.  ``idx2``: the pairs' four index rows\n"
"(a in the first, b in the third); ``w``: the weights per unit; ``owner`` (int64) and\n"
"``steer`` (bool) per unit, or ``steer`` None when every pair is firm.");

static PyObject *py_pair_shares(PyObject *self, PyObject *args) {
    PyObject *idx_obj, *w_obj, *own_obj, *steer_obj, *out_obj;
    double wm;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOdO:pair_shares", &idx_obj, &w_obj, &own_obj, &steer_obj, &wm, &out_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *ip, *wp, *sp = NULL, *outp;
    const char *op = NULL;
    Py_ssize_t m4, n, os = 0;
    if (!coll_get(&b, idx_obj, 'q', -1, 0, "pair_shares: idx2", &ip, &m4) ||
        !coll_get(&b, w_obj, 'd', -1, 0, "pair_shares: w", &wp, &n))
        goto done;
    if (m4 % 4) {
        PyErr_SetString(PyExc_ValueError, "pair_shares: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t m = m4 / 4;
    const int64_t *a = (const int64_t *)ip, *bb = a + 2 * m;
    if (!coll_in_range(a, m, n, "pair_shares: a") || !coll_in_range(bb, m, n, "pair_shares: b") ||
        (steer_obj != Py_None &&
         (!coll_get_column(&b, own_obj, n, "pair_shares: owner", &op, &os) ||
          !coll_get(&b, steer_obj, '?', n, 0, "pair_shares: steer", &sp, NULL))) ||
        !coll_get(&b, out_obj, 'd', 3 * m, 1, "pair_shares: out", &outp, NULL))
        goto done;
    {
        const double *w = (const double *)wp;
        const unsigned char *st = (const unsigned char *)sp;
        double *fa = (double *)outp, *wa = fa + m, *wb = fa + 2 * m;
        for (Py_ssize_t i = 0; i < m; i++) {
            double x = w[a[i]], y = w[bb[i]];
            /* firm: enemies, or neither unit steering; there nobody yields more than a mover */
            if (st == NULL || *(const int64_t *)(op + a[i] * os) != *(const int64_t *)(op + bb[i] * os) ||
                !(st[a[i]] || st[bb[i]])) {
                x = x > wm ? wm : x; /* np.minimum: the first operand unless the second is smaller */
                y = y > wm ? wm : y;
            }
            double tot = x + y;
            fa[i] = tot > 0 ? x / tot : 0.5;
            wa[i] = x;
            wb[i] = y;
        }
        Py_INCREF(Py_None);
        ret = Py_None;
    }
done:
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(give_way_doc,
"give_way(walking, in_range, kind, mobile, hold, w_idle, w_moving, w_attacking, w_fixed, w) -> None\n\n"
"Writes each unit's give-way weight into ``w`` (float64, n): ``w_fixed`` on hold (``kind`` equal\n"
"to ``hold``) or not ``mobile``, else ``w_attacking`` ``in_range``, else ``w_moving`` ``walking``,\n"
"else ``w_idle``: the compiled twin of the weights at the start of\n"
"sc2pool.engine.sim.systems.collision.Collision.separate.");

static PyObject *py_give_way(PyObject *self, PyObject *args) {
    PyObject *walk_obj, *rng_obj, *kind_obj, *mob_obj, *w_obj;
    long long hold;
    double w_idle, w_moving, w_attacking, w_fixed;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOLddddO:give_way", &walk_obj, &rng_obj, &kind_obj, &mob_obj, &hold, &w_idle,
                          &w_moving, &w_attacking, &w_fixed, &w_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *wkp, *rp, *mp, *wp;
    const char *kp;
    Py_ssize_t n, ks;
    if (!coll_get(&b, w_obj, 'd', -1, 1, "give_way: w", &wp, &n) ||
        !coll_get(&b, walk_obj, '?', n, 0, "give_way: walking", &wkp, NULL) ||
        !coll_get(&b, rng_obj, '?', n, 0, "give_way: in_range", &rp, NULL) ||
        !coll_get_column(&b, kind_obj, n, "give_way: kind", &kp, &ks) ||
        !coll_get(&b, mob_obj, '?', n, 0, "give_way: mobile", &mp, NULL))
        goto done;
    {
        const unsigned char *walking = (const unsigned char *)wkp, *in_range = (const unsigned char *)rp;
        const unsigned char *mobile = (const unsigned char *)mp;
        double *w = (double *)wp;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (*(const int64_t *)(kp + i * ks) == hold || !mobile[i]) w[i] = w_fixed;
            else if (in_range[i]) w[i] = w_attacking;
            else if (walking[i]) w[i] = w_moving;
            else w[i] = w_idle;
        }
        Py_INCREF(Py_None);
        ret = Py_None;
    }
done:
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(sidestep_movers_doc,
"sidestep_movers(idx2, walk, mover) -> int\n\n"
"Writes each pair's walking unit (a where a walks, else b) into ``mover`` (int64, m) and returns\n"
"the number of pairs where exactly one unit walks (``walk``: bool per unit): the compiled twin\n"
"of the test before the sidestep in sc2pool.engine.sim.systems.collision.Collision._first_push.");

static PyObject *py_sidestep_movers(PyObject *self, PyObject *args) {
    PyObject *idx_obj, *walk_obj, *mover_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO:sidestep_movers", &idx_obj, &walk_obj, &mover_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *ip, *wp, *mp;
    Py_ssize_t m4, n;
    if (!coll_get(&b, idx_obj, 'q', -1, 0, "sidestep_movers: idx2", &ip, &m4) ||
        !coll_get(&b, walk_obj, '?', -1, 0, "sidestep_movers: walk", &wp, &n))
        goto done;
    if (m4 % 4) {
        PyErr_SetString(PyExc_ValueError, "sidestep_movers: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t m = m4 / 4;
    const int64_t *a = (const int64_t *)ip, *bb = a + 2 * m;
    if (!coll_in_range(a, m, n, "sidestep_movers: a") || !coll_in_range(bb, m, n, "sidestep_movers: b") ||
        !coll_get(&b, mover_obj, 'q', m, 1, "sidestep_movers: mover", &mp, NULL))
        goto done;
    {
        const unsigned char *walk = (const unsigned char *)wp;
        int64_t *mover = (int64_t *)mp;
        Py_ssize_t one = 0;
        for (Py_ssize_t i = 0; i < m; i++) {
            int ma = walk[a[i]] != 0, mb = walk[bb[i]] != 0;
            mover[i] = ma ? a[i] : bb[i];
            one += ma ^ mb;
        }
        ret = PyLong_FromSsize_t(one);
    }
done:
    coll_release(&b);
    return ret;
}

PyDoc_STRVAR(first_push_doc,
"first_push(dx, dy, d, ov, idx2, wa, wb, walk, steer, hx, hy, w_moving, sidestep, push) -> None\n\n"
"Writes the first pass's pushes (x components, then y) into ``push`` (float64, 2 m): the compiled\n"
"twin of sc2pool.engine.sim.systems.collision.Collision._first_push.  ``dx``, ``dy``, ``d``,\n"
"``ov``: each pair's x and y from b to a, distance and overlap; ``wa``, ``wb``: the give-way\n"
"weights as used; ``walk``, ``steer`` (bool per unit) and ``hx``, ``hy`` (the cosine and sine of\n"
"each pair's walking unit's facing), or all four None where nobody is passed sideways.");

static PyObject *py_first_push(PyObject *self, PyObject *args) {
    PyObject *dx_obj, *dy_obj, *d_obj, *ov_obj, *idx_obj, *wa_obj, *wb_obj, *walk_obj, *steer_obj, *hx_obj,
        *hy_obj, *push_obj;
    double wm, sidestep;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOddO:first_push", &dx_obj, &dy_obj, &d_obj, &ov_obj, &idx_obj, &wa_obj,
                          &wb_obj, &walk_obj, &steer_obj, &hx_obj, &hy_obj, &wm, &sidestep, &push_obj))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    void *dxp, *dyp, *dp, *ovp, *ip, *wap, *wbp, *walkp = NULL, *stp = NULL, *hxp = NULL, *hyp = NULL, *pp;
    Py_ssize_t m, n = 0;
    if (!coll_get(&b, d_obj, 'd', -1, 0, "first_push: d", &dp, &m) ||
        !coll_get(&b, dx_obj, 'd', m, 0, "first_push: dx", &dxp, NULL) ||
        !coll_get(&b, dy_obj, 'd', m, 0, "first_push: dy", &dyp, NULL) ||
        !coll_get(&b, ov_obj, 'd', m, 0, "first_push: ov", &ovp, NULL) ||
        !coll_get(&b, idx_obj, 'q', 4 * m, 0, "first_push: idx2", &ip, NULL) ||
        !coll_get(&b, wa_obj, 'd', m, 0, "first_push: wa", &wap, NULL) ||
        !coll_get(&b, wb_obj, 'd', m, 0, "first_push: wb", &wbp, NULL) ||
        !coll_get(&b, push_obj, 'd', 2 * m, 1, "first_push: push", &pp, NULL))
        goto done;
    if (hx_obj != Py_None) {
        const int64_t *a = (const int64_t *)ip;
        if (!coll_get(&b, walk_obj, '?', -1, 0, "first_push: walk", &walkp, &n) ||
            !coll_get(&b, steer_obj, '?', n, 0, "first_push: steer", &stp, NULL) ||
            !coll_get(&b, hx_obj, 'd', m, 0, "first_push: hx", &hxp, NULL) ||
            !coll_get(&b, hy_obj, 'd', m, 0, "first_push: hy", &hyp, NULL) ||
            !coll_in_range(a, m, n, "first_push: a") || !coll_in_range(a + 2 * m, m, n, "first_push: b"))
            goto done;
    }
    {
        const double *dx = (const double *)dxp, *dy = (const double *)dyp, *d = (const double *)dp;
        const double *ov = (const double *)ovp, *wa = (const double *)wap, *wb = (const double *)wbp;
        const double *hx = (const double *)hxp, *hy = (const double *)hyp;
        const int64_t *a = (const int64_t *)ip, *bb = a + 2 * m;
        const unsigned char *walk = (const unsigned char *)walkp, *st = (const unsigned char *)stp;
        double *px = (double *)pp, *py = px + m;
        for (Py_ssize_t i = 0; i < m; i++) {
            double o = ov[i] < 0.0 ? 0.0 : ov[i]; /* np.maximum(ov, 0.0), NaN kept */
            double k = o / d[i];
            px[i] = dx[i] * k;
            py[i] = dy[i] * k;
            if (hx == NULL) continue;
            /* a standing unit in a mover's way is passed sideways (see _first_push) */
            int ma = walk[a[i]] != 0, one = ma ^ (walk[bb[i]] != 0);
            int64_t mv = ma ? a[i] : bb[i];
            double ox = ma ? -dx[i] : dx[i], oy = ma ? -dy[i] : dy[i];
            double sign = ((hx[i] * oy - hy[i] * ox >= 0.0) ^ ma) ? 1.0 : -1.0;
            double w_other = ma ? wb[i] : wa[i];
            sign *= (double)(one && st[mv] && w_other != wm);
            sign *= sidestep;
            px[i] -= hy[i] * sign * o;
            py[i] += hx[i] * sign * o;
        }
        Py_INCREF(Py_None);
        ret = Py_None;
    }
done:
    coll_release(&b);
    return ret;
}

/* Collision._relax: passes as numpy runs them (see there); returns the passes made.  `push`
 * holds the first pass's pushes when `first`, and is the pushes' work space (2 m); `acc` the
 * per-coordinate sums (n2, zeroed). */
static long relax(double *xy, Py_ssize_t n2, const int64_t *idx, Py_ssize_t m, const double *rr_a, double rr_s,
                  const double *fa, double *push, int first, long iters, double tol, double relaxation,
                  double *acc) {
    const int64_t *ia = idx, *iay = idx + m, *ib = idx + 2 * m, *iby = idx + 3 * m;
    double *px = push, *py = push + m;
    long it = 0;
    while (it < iters) {
        int computed = it || !first;
        if (computed) {
            int over = 0;
            for (Py_ssize_t i = 0; i < m; i++) {
                double dx = xy[ia[i]] - xy[ib[i]], dy = xy[iay[i]] - xy[iby[i]];
                double d = sqrt(dx * dx + dy * dy);
                if (d < 1e-9) d = 1e-9; /* np.maximum(d, 1e-9), NaN kept */
                double ov = COLL_AT(rr_a, rr_s, i) - d;
                if (ov > tol) over = 1;
                if (ov < 0.0) ov = 0.0;
                ov /= d;
                px[i] = dx * ov;
                py[i] = dy * ov;
            }
            if (!over) break;
        }
        /* the weights laid out as numpy's bincount sees them: a's x, a's y, b's x, b's y, each
         * in pair order; a round's first pass pushes in full, the later ones scaled once */
        for (int seg = 0; seg < 4; seg++) {
            const int64_t *to = seg == 0 ? ia : seg == 1 ? iay : seg == 2 ? ib : iby;
            const double *pv = seg & 1 ? py : px;
            for (Py_ssize_t i = 0; i < m; i++) {
                double share = seg < 2 ? fa[i] : fa[i] - 1.0;
                if (computed) share *= relaxation;
                acc[to[i]] += pv[i] * share;
            }
        }
        for (Py_ssize_t j = 0; j < n2; j++) {
            xy[j] += acc[j];
            acc[j] = 0.0;
        }
        it++;
    }
    return it;
}

PyDoc_STRVAR(relax_pairs_doc,
"relax_pairs(xy, idx2, rr, fa, push, iters, tol, relaxation) -> int\n\n"
"Jacobi passes pushing the overlapping pairs ``idx2`` (four index rows into ``xy``, moved in\n"
"place) apart: the compiled twin of sc2pool.engine.sim.systems.collision.Collision._relax.\n"
"``rr``: the summed radii (one float or one per pair); ``fa``: a's share; ``push``: the first\n"
"pass's pushes (x components, then y) or None; ``tol``, ``relaxation``: SEPARATION_TOL and\n"
"RELAXATION.  Returns the passes made.");

static PyObject *py_relax_pairs(PyObject *self, PyObject *args) {
    PyObject *xy_obj, *idx_obj, *rr_obj, *fa_obj, *push_obj;
    long iters;
    double tol, relaxation;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOldd:relax_pairs", &xy_obj, &idx_obj, &rr_obj, &fa_obj, &push_obj, &iters,
                          &tol, &relaxation))
        return NULL;
    coll_bufs b = {.n = 0};
    PyObject *ret = NULL;
    double *work = NULL;
    void *xyp, *ip, *fap, *pp = NULL;
    Py_ssize_t n2, m4;
    double rr_s = 0.0;
    const double *rr_a;
    if (!coll_get(&b, xy_obj, 'd', -1, 1, "relax_pairs: xy", &xyp, &n2) ||
        !coll_get(&b, idx_obj, 'q', -1, 0, "relax_pairs: idx2", &ip, &m4))
        goto done;
    if (m4 % 4) {
        PyErr_SetString(PyExc_ValueError, "relax_pairs: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t m = m4 / 4;
    if (!coll_in_range((const int64_t *)ip, m4, n2, "relax_pairs: idx2") ||
        !coll_scalar_or(&b, rr_obj, m, "relax_pairs: rr", &rr_s, &rr_a) ||
        !coll_get(&b, fa_obj, 'd', m, 0, "relax_pairs: fa", &fap, NULL) ||
        (push_obj != Py_None && !coll_get(&b, push_obj, 'd', 2 * m, 0, "relax_pairs: push", &pp, NULL)))
        goto done;
    work = (double *)calloc((size_t)(2 * m + n2 + 1), sizeof(double));
    if (work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (pp != NULL) memcpy(work, pp, sizeof(double) * (size_t)(2 * m));
    ret = PyLong_FromLong(relax((double *)xyp, n2, (const int64_t *)ip, m, rr_a, rr_s, (const double *)fap, work,
                                pp != NULL, iters, tol, relaxation, work + 2 * m));
done:
    free(work);
    coll_release(&b);
    return ret;
}
