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
    const char *fn = "sweep_pairs";
    kn_bufs b;
    b.n = 0;
    PyObject *out = NULL;
    int64_t *perm = NULL;
    double *sx = NULL;
    Py_ssize_t n, k;
    const double *x = kn_vec(&b, x_obj, 'd', KN_ANY, KN_CONTIG, &n, fn, "x");
    const double *y = x ? kn_vec(&b, y_obj, 'd', n, KN_CONTIG, NULL, fn, "y") : NULL;
    const int64_t *c = y ? kn_vec(&b, c_obj, 'q', KN_ANY, KN_CONTIG, &k, fn, "c") : NULL;
    const double *r = c ? kn_vec(&b, r_obj, 'd', k, KN_CONTIG, NULL, fn, "rc") : NULL;
    if (r == NULL || !kn_in_range(KN_FLAT(c, k), n, fn, "c")) goto done;
    {
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
    kn_release(&b);
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
    const char *fn = "moved_apart";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n2, k2;
    const double *xy = kn_vec(&b, xy_obj, 'd', KN_ANY, KN_CONTIG, &n2, fn, "xy");
    const int64_t *idx = xy ? kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &k2, fn, "ref_idx") : NULL;
    if (idx == NULL || !kn_in_range(KN_FLAT(idx, k2), n2, fn, "ref_idx")) goto done;
    const double *ref = kn_vec(&b, ref_obj, 'd', k2, KN_CONTIG, NULL, fn, "ref_xy");
    if (ref == NULL) goto done;
    if (k2 % 2) {
        PyErr_SetString(PyExc_ValueError, "moved_apart: ref_idx must hold two rows of one length");
        goto done;
    }
    {
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
    kn_release(&b);
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
    const char *fn = "active_pairs";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n2, p4;
    double reach_s = 0.0, rr_s = 0.0;
    kn_column reach_c, rr_c;
    const double *xy = kn_vec(&b, xy_obj, 'd', KN_ANY, KN_CONTIG, &n2, fn, "xy");
    const int64_t *idx = xy ? kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &p4, fn, "idx4") : NULL;
    if (idx == NULL) goto done;
    if (p4 % 4) {
        PyErr_SetString(PyExc_ValueError, "active_pairs: idx4 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t p = p4 / 4;
    if (!kn_in_range(KN_FLAT(idx, p4), n2, fn, "idx4") ||
        !kn_number_or(&b, reach_obj, p, KN_CONTIG, &reach_s, &reach_c, fn, "reach2") ||
        !kn_number_or(&b, rr_obj, p, KN_CONTIG, &rr_s, &rr_c, fn, "rr"))
        goto done;
    int64_t *io = kn_vec(&b, io_obj, 'q', 5 * p, KN_WRITABLE, NULL, fn, "io");
    double *fo = io ? kn_vec(&b, fo_obj, 'd', 5 * p, KN_WRITABLE, NULL, fn, "fo") : NULL;
    if (fo == NULL) goto done;
    {
        const double *reach_a = (const double *)reach_c.p, *rr_a = (const double *)rr_c.p;
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
    kn_release(&b);
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
    const char *fn = "touching_pairs";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n2, p4;
    double rr_s = 0.0;
    kn_column rr_c;
    const double *xy = kn_vec(&b, xy_obj, 'd', KN_ANY, KN_CONTIG, &n2, fn, "xy");
    const int64_t *idx = xy ? kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &p4, fn, "idx2") : NULL;
    if (idx == NULL) goto done;
    if (p4 % 4) {
        PyErr_SetString(PyExc_ValueError, "touching_pairs: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t p = p4 / 4;
    if (!kn_in_range(KN_FLAT(idx, p4), n2, fn, "idx2") ||
        !kn_number_or(&b, rr_obj, p, KN_CONTIG, &rr_s, &rr_c, fn, "rr"))
        goto done;
    int64_t *rows = kn_vec(&b, rows_obj, 'q', 4 * p, KN_WRITABLE, NULL, fn, "rows");
    double *vec = rows ? kn_vec(&b, vec_obj, 'd', 6 * p, KN_WRITABLE, NULL, fn, "vec") : NULL;
    if (vec == NULL) goto done;
    {
        const double *rr_a = (const double *)rr_c.p;
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
    kn_release(&b);
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
    const char *fn = "join_overlapping";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    unsigned char *held = NULL;
    Py_ssize_t n2, p4, na;
    double over_s = 0.0, rr_s = 0.0;
    kn_column over_c, rr_c;
    const double *xy = kn_vec(&b, xy_obj, 'd', KN_ANY, KN_CONTIG, &n2, fn, "xy");
    const int64_t *idx = xy ? kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &p4, fn, "idx4") : NULL;
    if (idx == NULL) goto done;
    if (p4 % 4) {
        PyErr_SetString(PyExc_ValueError, "join_overlapping: idx4 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t p = p4 / 4;
    if (!kn_in_range(KN_FLAT(idx, p4), n2, fn, "idx4") ||
        !kn_number_or(&b, over_obj, p, KN_CONTIG, &over_s, &over_c, fn, "over2") ||
        !kn_number_or(&b, rr_obj, p, KN_CONTIG, &rr_s, &rr_c, fn, "rr"))
        goto done;
    const int64_t *act = kn_vec(&b, act_obj, 'q', KN_ANY, KN_CONTIG, &na, fn, "act");
    if (act == NULL || !kn_in_range(KN_FLAT(act, na), p, fn, "act")) goto done;
    int64_t *io = kn_vec(&b, io_obj, 'q', 5 * p, KN_WRITABLE, NULL, fn, "io");
    double *fo = io ? kn_vec(&b, fo_obj, 'd', p, KN_WRITABLE, NULL, fn, "fo") : NULL;
    if (fo == NULL) goto done;
    held = (unsigned char *)calloc((size_t)p + 1, 1);
    if (held == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const double *over_a = (const double *)over_c.p, *rr_a = (const double *)rr_c.p;
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
    kn_release(&b);
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
    const char *fn = "pair_shares";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    const unsigned char *st = NULL;
    kn_column owner;
    Py_ssize_t m4, n;
    const int64_t *a = kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &m4, fn, "idx2");
    const double *w = a ? kn_vec(&b, w_obj, 'd', KN_ANY, KN_CONTIG, &n, fn, "w") : NULL;
    if (w == NULL) goto done;
    if (m4 % 4) {
        PyErr_SetString(PyExc_ValueError, "pair_shares: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t m = m4 / 4;
    const int64_t *bb = a + 2 * m;
    if (!kn_in_range(KN_FLAT(a, m), n, fn, "a") || !kn_in_range(KN_FLAT(bb, m), n, fn, "b")) goto done;
    if (steer_obj != Py_None) {
        if (!kn_col(&b, own_obj, 'q', n, KN_STRIDED, &owner, fn, "owner")) goto done;
        st = kn_vec(&b, steer_obj, '?', n, KN_CONTIG, NULL, fn, "steer");
        if (st == NULL) goto done;
    }
    double *fa = kn_vec(&b, out_obj, 'd', 3 * m, KN_WRITABLE, NULL, fn, "out");
    if (fa == NULL) goto done;
    {
        double *wa = fa + m, *wb = fa + 2 * m;
        for (Py_ssize_t i = 0; i < m; i++) {
            double x = w[a[i]], y = w[bb[i]];
            /* firm: enemies, or neither unit steering; there nobody yields more than a mover */
            if (st == NULL || KN_AT(long long, owner, a[i]) != KN_AT(long long, owner, bb[i]) ||
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
    kn_release(&b);
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
    const char *fn = "give_way";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    kn_column kind;
    Py_ssize_t n;
    double *w = kn_vec(&b, w_obj, 'd', KN_ANY, KN_WRITABLE, &n, fn, "w");
    const unsigned char *walking = w ? kn_vec(&b, walk_obj, '?', n, KN_CONTIG, NULL, fn, "walking") : NULL;
    const unsigned char *in_range = walking ? kn_vec(&b, rng_obj, '?', n, KN_CONTIG, NULL, fn, "in_range") : NULL;
    if (in_range == NULL || !kn_col(&b, kind_obj, 'q', n, KN_STRIDED, &kind, fn, "kind")) goto done;
    const unsigned char *mobile = kn_vec(&b, mob_obj, '?', n, KN_CONTIG, NULL, fn, "mobile");
    if (mobile == NULL) goto done;
    {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (KN_AT(long long, kind, i) == hold || !mobile[i]) w[i] = w_fixed;
            else if (in_range[i]) w[i] = w_attacking;
            else if (walking[i]) w[i] = w_moving;
            else w[i] = w_idle;
        }
        Py_INCREF(Py_None);
        ret = Py_None;
    }
done:
    kn_release(&b);
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
    const char *fn = "sidestep_movers";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t m4, n;
    const int64_t *a = kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &m4, fn, "idx2");
    const unsigned char *walk = a ? kn_vec(&b, walk_obj, '?', KN_ANY, KN_CONTIG, &n, fn, "walk") : NULL;
    if (walk == NULL) goto done;
    if (m4 % 4) {
        PyErr_SetString(PyExc_ValueError, "sidestep_movers: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t m = m4 / 4;
    const int64_t *bb = a + 2 * m;
    if (!kn_in_range(KN_FLAT(a, m), n, fn, "a") || !kn_in_range(KN_FLAT(bb, m), n, fn, "b")) goto done;
    int64_t *mover = kn_vec(&b, mover_obj, 'q', m, KN_WRITABLE, NULL, fn, "mover");
    if (mover == NULL) goto done;
    {
        Py_ssize_t one = 0;
        for (Py_ssize_t i = 0; i < m; i++) {
            int ma = walk[a[i]] != 0, mb = walk[bb[i]] != 0;
            mover[i] = ma ? a[i] : bb[i];
            one += ma ^ mb;
        }
        ret = PyLong_FromSsize_t(one);
    }
done:
    kn_release(&b);
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
    const char *fn = "first_push";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    const unsigned char *walk = NULL, *st = NULL;
    const double *hx = NULL, *hy = NULL;
    Py_ssize_t m, n;
    const double *d = kn_vec(&b, d_obj, 'd', KN_ANY, KN_CONTIG, &m, fn, "d");
    const double *dx = d ? kn_vec(&b, dx_obj, 'd', m, KN_CONTIG, NULL, fn, "dx") : NULL;
    const double *dy = dx ? kn_vec(&b, dy_obj, 'd', m, KN_CONTIG, NULL, fn, "dy") : NULL;
    const double *ov = dy ? kn_vec(&b, ov_obj, 'd', m, KN_CONTIG, NULL, fn, "ov") : NULL;
    const int64_t *a = ov ? kn_vec(&b, idx_obj, 'q', 4 * m, KN_CONTIG, NULL, fn, "idx2") : NULL;
    const double *wa = a ? kn_vec(&b, wa_obj, 'd', m, KN_CONTIG, NULL, fn, "wa") : NULL;
    const double *wb = wa ? kn_vec(&b, wb_obj, 'd', m, KN_CONTIG, NULL, fn, "wb") : NULL;
    double *px = wb ? kn_vec(&b, push_obj, 'd', 2 * m, KN_WRITABLE, NULL, fn, "push") : NULL;
    if (px == NULL) goto done;
    if (hx_obj != Py_None) {
        walk = kn_vec(&b, walk_obj, '?', KN_ANY, KN_CONTIG, &n, fn, "walk");
        st = walk ? kn_vec(&b, steer_obj, '?', n, KN_CONTIG, NULL, fn, "steer") : NULL;
        hx = st ? kn_vec(&b, hx_obj, 'd', m, KN_CONTIG, NULL, fn, "hx") : NULL;
        hy = hx ? kn_vec(&b, hy_obj, 'd', m, KN_CONTIG, NULL, fn, "hy") : NULL;
        if (hy == NULL || !kn_in_range(KN_FLAT(a, m), n, fn, "a") ||
            !kn_in_range(KN_FLAT(a + 2 * m, m), n, fn, "b"))
            goto done;
    }
    {
        const int64_t *bb = a + 2 * m;
        double *py = px + m;
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
    kn_release(&b);
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
    const char *fn = "relax_pairs";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    double *work = NULL;
    Py_ssize_t n2, m4;
    double rr_s = 0.0;
    kn_column rr_c;
    double *xy = kn_vec(&b, xy_obj, 'd', KN_ANY, KN_WRITABLE, &n2, fn, "xy");
    const int64_t *idx = xy ? kn_vec(&b, idx_obj, 'q', KN_ANY, KN_CONTIG, &m4, fn, "idx2") : NULL;
    if (idx == NULL) goto done;
    if (m4 % 4) {
        PyErr_SetString(PyExc_ValueError, "relax_pairs: idx2 must hold four rows of one length");
        goto done;
    }
    Py_ssize_t m = m4 / 4;
    if (!kn_in_range(KN_FLAT(idx, m4), n2, fn, "idx2") ||
        !kn_number_or(&b, rr_obj, m, KN_CONTIG, &rr_s, &rr_c, fn, "rr"))
        goto done;
    const double *fa = kn_vec(&b, fa_obj, 'd', m, KN_CONTIG, NULL, fn, "fa");
    void *push;
    if (fa == NULL || !kn_vec_opt(&b, push_obj, 'd', 2 * m, KN_CONTIG, fn, "push", &push)) goto done;
    work = (double *)calloc((size_t)(2 * m + n2 + 1), sizeof(double));
    if (work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (push != NULL) memcpy(work, push, sizeof(double) * (size_t)(2 * m));
    ret = PyLong_FromLong(relax(xy, n2, idx, m, (const double *)rr_c.p, rr_s, fa, work, push != NULL, iters, tol,
                                relaxation, work + 2 * m));
done:
    free(work);
    kn_release(&b);
    return ret;
}
