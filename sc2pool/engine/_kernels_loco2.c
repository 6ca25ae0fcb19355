/* Compiled twins of the movement glue that runs every game loop (included by _kernels.c): the
 * collidable set's economy key (sc2pool/engine/sim/systems/collision.py), the movers that
 * steer and those that arrive by crowding, and the facing of walkers
 * (sc2pool/engine/sim/systems/locomotion.py).  tests/engine/test_kernels_loco2.py holds each to
 * its Python twin.
 *
 * The Python code compares distances that numpy's hypot gives; hypot stays out of C (numpy's may
 * differ from the C library's by an ulp).  These kernels take the root of the squares instead,
 * which is within a few units in 1e-16 of hypot, and decide a comparison only where the two sides
 * lie further apart than LOCO2_TIE; otherwise they answer that they cannot tell, and the caller
 * runs the numpy code.
 */

/* Relative gap above which a comparison of distances from the roots of squares is the comparison
 * of numpy's hypots (they differ by a few units in 1e-16). */
#define LOCO2_TIE 1e-9
/* Squares outside [LOCO2_TINY, LOCO2_HUGE] may have lost their relative precision. */
#define LOCO2_TINY 1e-280
#define LOCO2_HUGE 1e280

/* numpy's hypot(dx, dy) within a few units in 1e-16: the root of the squares; 0 exactly where
 * both are 0 (as hypot); -1 where the squares may be imprecise (under- or overflow, NaN). */
static double loco2_hypot(double dx, double dy) {
    double s = dx * dx + dy * dy;
    if (s == 0.0) return dx == 0.0 && dy == 0.0 ? 0.0 : -1.0;
    if (!(s >= LOCO2_TINY && s <= LOCO2_HUGE)) return -1.0;
    return sqrt(s);
}

/* a < b for a and b within LOCO2_TIE of what numpy compares (a negative side: a loco2_hypot
 * that could not tell): 1 or 0 where certain, -1 where too near to tell.  Two zeros are exact. */
static int loco2_lt(double a, double b) {
    if (a == 0.0 && b == 0.0) return 0;
    double tol = LOCO2_TIE * fmax(fabs(a), fabs(b));
    if (b - a > tol) return 1;
    if (a - b > tol) return 0;
    return -1;
}

/* a <= b, as loco2_lt. */
static int loco2_le(double a, double b) {
    int gt = loco2_lt(b, a);
    return gt < 0 ? -1 : !gt;
}

/* The conjunction of three answers of loco2_lt: 0 where one is certainly false. */
static int loco2_and3(int a, int b, int c) {
    if (!a || !b || !c) return 0;
    return a < 0 || b < 0 || c < 0 ? -1 : 1;
}

PyDoc_STRVAR(econ_same_doc,
"econ_same(kind, econ, mask) -> bool\n\n"
"Whether the units on an economy job (order kind ``econ`` in ``kind``, int64, per unit row,\n"
"strided or not) are those of ``mask`` (bytes or uint8: one 0 or 1 per unit row, or empty: no\n"
"unit): the compiled twin of the key comparison in\n"
"sc2pool.engine.sim.systems.collision.Collision.collidable, whose key holds\n"
"``(kind == econ).tobytes()``, or b\"\" where no unit is on an economy job.  A mask of another\n"
"length is not the same.");

static PyObject *py_econ_same(PyObject *self, PyObject *args) {
    PyObject *kind_o, *mask_o;
    long long econ;
    (void)self;
    if (!PyArg_ParseTuple(args, "OLO:econ_same", &kind_o, &econ, &mask_o)) return NULL;
    const char *fn = "econ_same";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    kn_column kind;
    Py_ssize_t nm;
    if (!kn_col(&b, kind_o, 'q', KN_ANY, KN_STRIDED, &kind, fn, "kind")) goto done;
    const unsigned char *mask = kn_vec(&b, mask_o, 'B', KN_ANY, KN_CONTIG, &nm, fn, "mask");
    if (mask == NULL) goto done;
    {
        Py_ssize_t n = kind.len;
        int same = 1;
        if (nm == 0) {
            for (Py_ssize_t i = 0; i < n && same; i++) same = KN_AT(long long, kind, i) != econ;
        } else if (nm != n) {
            same = 0;
        } else {
            for (Py_ssize_t i = 0; i < n && same; i++) same = (KN_AT(long long, kind, i) == econ) == (mask[i] != 0);
        }
        ret = PyBool_FromLong(same);
    }
done:
    kn_release(&b);
    return ret;
}

/* The float block's rows `row` and `row + 1` as two pointers; 0 with a ValueError when F does
 * not hold them (F: `nf` items, rows of `n` units; with no unit any row is empty). */
static int loco2_rows(double *F, Py_ssize_t nf, Py_ssize_t n, Py_ssize_t row, double **a, double **b, const char *fn,
                      const char *what) {
    Py_ssize_t rows = n ? nf / n : row + 2;
    if (rows * n != nf || row < 0 || row + 1 >= rows) {
        PyErr_Format(PyExc_ValueError, "%s: %s must name two rows of F (%zd items for %zd units)", fn, what, nf, n);
        return 0;
    }
    *a = F + row * n;
    *b = *a + n;
    return 1;
}

/* (2 r) sqrt_n[owner]: how far from its goal unit `r` may stop against allies (Locomotion's
 * _crowd_bound); 0 with a ValueError when its owner has no entry. */
static int loco2_bound(kn_column radius, kn_column owner, const double *sqrt_n, Py_ssize_t n_owners, long long r,
                       double *out, const char *fn) {
    long long o = KN_AT(long long, owner, r);
    if (o < 0 || o >= n_owners) {
        PyErr_Format(PyExc_ValueError, "%s: owner %lld of row %lld lies outside sqrt_n (%zd owners)", fn, o, r,
                     n_owners);
        return 0;
    }
    *out = 2.0 * KN_AT(double, radius, r) * sqrt_n[o];
    return 1;
}

PyDoc_STRVAR(crowd_steer_doc,
"crowd_steer(pg, F, goal_row, xy2, radius, owner, sqrt_n, steer) -> bool\n\n"
"Sets ``steer[r]`` (bool per unit row, cleared by the caller) for each mover ``r`` of ``pg``\n"
"(int64 unit rows) farther from its goal (rows ``goal_row``, ``goal_row + 1`` of the float block\n"
"``F``, C order) than 2 * its ``radius`` * ``sqrt_n[owner]``: the compiled twin of\n"
"sc2pool.engine.sim.systems.locomotion.Locomotion.steering.  ``xy2``: the positions (float64,\n"
"2 x units); ``radius``, ``owner`` per unit row (strided or not).  Returns False, with ``steer``\n"
"partly written, where a distance lies too near its bound to be told without numpy's hypot.");

static PyObject *py_crowd_steer(PyObject *self, PyObject *args) {
    PyObject *pg_o, *f_o, *xy_o, *radius_o, *owner_o, *sq_o, *steer_o;
    Py_ssize_t goal_row;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnOOOOO:crowd_steer", &pg_o, &f_o, &goal_row, &xy_o, &radius_o, &owner_o, &sq_o,
                          &steer_o))
        return NULL;
    const char *fn = "crowd_steer";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n, k, nf, n_owners;
    kn_column radius, owner;
    double *gx, *gy;
    if (!kn_col(&b, radius_o, 'd', KN_ANY, KN_STRIDED, &radius, fn, "radius")) goto done;
    n = radius.len;
    const long long *pg = kn_vec(&b, pg_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "pg");
    double *F = pg ? kn_vec(&b, f_o, 'd', KN_ANY, KN_CONTIG, &nf, fn, "F") : NULL;
    if (F == NULL || !loco2_rows(F, nf, n, goal_row, &gx, &gy, fn, "goal_row")) goto done;
    const double *xy = kn_vec(&b, xy_o, 'd', 2 * n, KN_CONTIG, NULL, fn, "xy2");
    if (xy == NULL || !kn_col(&b, owner_o, 'q', n, KN_STRIDED, &owner, fn, "owner")) goto done;
    const double *sqrt_n = kn_vec(&b, sq_o, 'd', KN_ANY, KN_CONTIG, &n_owners, fn, "sqrt_n");
    unsigned char *steer = sqrt_n ? kn_vec(&b, steer_o, '?', n, KN_WRITABLE, NULL, fn, "steer") : NULL;
    if (steer == NULL || !kn_rows_ok(pg, k, n, fn, "pg")) goto done;
    {
        int sure = 1;
        for (Py_ssize_t j = 0; j < k && sure; j++) {
            long long r = pg[j];
            double bound;
            if (!loco2_bound(radius, owner, sqrt_n, n_owners, r, &bound, fn)) goto done;
            double h = loco2_hypot(gx[r] - xy[r], gy[r] - xy[n + r]);
            int far = h < 0.0 ? -1 : loco2_lt(bound, h);
            if (far < 0) sure = 0;
            else if (far) steer[r] = 1;
        }
        ret = PyBool_FromLong(sure);
    }
done:
    kn_release(&b);
    return ret;
}

/* Whether mover `s` stops on touching the idle ally `o` (Locomotion.arrive_by_crowding): the
 * ally is ahead of it (within 60 degrees of its way to its goal `g`), nearer the goal, and the
 * mover within `bound` of the goal.  1 or 0 where certain, -1 where too near to tell. */
static int loco2_stops(const double *x, const double *y, const double *gxs, const double *gys, long long s,
                       long long o, double bound) {
    double xs = x[s], ys = y[s], xo = x[o], yo = y[o], gx = gxs[s], gy = gys[s];
    double mine = loco2_hypot(xs - gx, ys - gy);
    double theirs = loco2_hypot(xo - gx, yo - gy);
    double dist_o = loco2_hypot(xo - xs, yo - ys);
    double ahead = (xo - xs) * (gx - xs) + (yo - ys) * (gy - ys);
    int near = mine < 0.0 ? -1 : loco2_le(mine, bound);
    int nearer = mine < 0.0 || theirs < 0.0 ? -1 : loco2_lt(theirs, mine);
    int front = mine < 0.0 || dist_o < 0.0 ? -1 : loco2_le(0.5 * dist_o * mine, ahead);
    return loco2_and3(front, nearer, near);
}

PyDoc_STRVAR(crowd_stops_doc,
"crowd_stops(m, a, b, rr, slop, F, x_row, goal_row, kind, eng, owner, idle, radius, sqrt_n, done) -> int\n\n"
"The movers of ``m`` (int64 unit rows) that stop on bumping into an idle ally: the compiled twin of\n"
"sc2pool.engine.sim.systems.locomotion.Locomotion.arrive_by_crowding with\n"
"sc2pool.engine.sim.systems.collision.Collision.touching_now.  A pair ``a[q]``, ``b[q]`` (int64\n"
"unit rows) of the pair list touches where its distance is at most ``rr`` (one float, or float64\n"
"per pair) + ``slop``; a mover touching an ally of its owner with no order (``kind`` ``idle``) and\n"
"no target (``eng`` 0) stops where that ally is ahead of it (within 60 degrees of its way to its\n"
"goal, rows ``goal_row``, ``goal_row + 1`` of the float block ``F``, C order, with the positions\n"
"in rows ``x_row``, ``x_row + 1``), nearer the goal, and it within 2 * ``radius`` *\n"
"``sqrt_n[owner]`` of the goal.  Writes ``done`` (bool per unit row): the movers that stop.\n"
"Returns how many stop, or -1 where a distance lies too near what it is compared with to be told\n"
"without numpy's hypot (``done`` is then partly written).");

static PyObject *py_crowd_stops(PyObject *self, PyObject *args) {
    PyObject *m_o, *a_o, *b_o, *rr_o, *f_o, *kind_o, *eng_o, *owner_o, *radius_o, *sq_o, *done_o;
    double slop;
    Py_ssize_t x_row, goal_row;
    long long idle;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOdOnnOOOLOOO:crowd_stops", &m_o, &a_o, &b_o, &rr_o, &slop, &f_o, &x_row,
                          &goal_row, &kind_o, &eng_o, &owner_o, &idle, &radius_o, &sq_o, &done_o))
        return NULL;
    const char *fn = "crowd_stops";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    unsigned char *mover = NULL;
    Py_ssize_t n, k, p, nf, n_owners;
    kn_column kind, eng, owner, radius, rr_c;
    double rr_s = 0.0, *x, *y, *gx, *gy;
    if (!kn_col(&b, kind_o, 'q', KN_ANY, KN_STRIDED, &kind, fn, "kind")) goto done;
    n = kind.len;
    const long long *m = kn_vec(&b, m_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    const long long *pa = m ? kn_vec(&b, a_o, 'q', KN_ANY, KN_CONTIG, &p, fn, "a") : NULL;
    const long long *pb = pa ? kn_vec(&b, b_o, 'q', p, KN_CONTIG, NULL, fn, "b") : NULL;
    if (pb == NULL || !kn_number_or(&b, rr_o, p, KN_CONTIG, &rr_s, &rr_c, fn, "rr")) goto done;
    double *F = kn_vec(&b, f_o, 'd', KN_ANY, KN_CONTIG, &nf, fn, "F");
    if (F == NULL || !loco2_rows(F, nf, n, x_row, &x, &y, fn, "x_row") ||
        !loco2_rows(F, nf, n, goal_row, &gx, &gy, fn, "goal_row") ||
        !kn_col(&b, eng_o, 'q', n, KN_STRIDED, &eng, fn, "eng") ||
        !kn_col(&b, owner_o, 'q', n, KN_STRIDED, &owner, fn, "owner") ||
        !kn_col(&b, radius_o, 'd', n, KN_STRIDED, &radius, fn, "radius"))
        goto done;
    const double *sqrt_n = kn_vec(&b, sq_o, 'd', KN_ANY, KN_CONTIG, &n_owners, fn, "sqrt_n");
    unsigned char *out = sqrt_n ? kn_vec(&b, done_o, '?', n, KN_WRITABLE, NULL, fn, "done") : NULL;
    if (out == NULL || !kn_rows_ok(m, k, n, fn, "m") || !kn_rows_ok(pa, p, n, fn, "a") ||
        !kn_rows_ok(pb, p, n, fn, "b"))
        goto done;
    mover = (unsigned char *)calloc((size_t)(n ? n : 1), 1);
    if (mover == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++) mover[m[j]] = 1;
    memset(out, 0, (size_t)n);
    {
        Py_ssize_t stopped = 0;
        for (Py_ssize_t q = 0; q < p; q++) {
            long long ends[2] = {pa[q], pb[q]};
            int rel[2];
            /* (source, other) both ways round: a mover and an idle ally of its owner */
            for (int w = 0; w < 2; w++) {
                long long s = ends[w], o = ends[1 - w];
                rel[w] = mover[s] && KN_AT(long long, kind, o) == idle && KN_AT(long long, eng, o) == 0 &&
                         KN_AT(long long, owner, s) == KN_AT(long long, owner, o);
            }
            if (!rel[0] && !rel[1]) continue;
            double d = loco2_hypot(x[pa[q]] - x[pb[q]], y[pa[q]] - y[pb[q]]);
            double reach = (rr_c.p != NULL ? KN_AT(double, rr_c, q) : rr_s) + slop;
            int touch = d < 0.0 ? -1 : loco2_le(d, reach);
            if (!touch) continue;
            for (int w = 0; w < 2; w++) {
                if (!rel[w]) continue;
                long long s = ends[w];
                double bound;
                if (!loco2_bound(radius, owner, sqrt_n, n_owners, s, &bound, fn)) goto done;
                int stop = loco2_stops(x, y, gx, gy, s, ends[1 - w], bound);
                if (stop && touch < 0) stop = -1;
                if (stop < 0) {
                    ret = PyLong_FromLong(-1);
                    goto done;
                }
                if (stop && !out[s]) {
                    out[s] = 1;
                    stopped++;
                }
            }
        }
        ret = PyLong_FromSsize_t(stopped);
    }
done:
    free(mover);
    kn_release(&b);
    return ret;
}

/* numpy's float remainder a % b (npy_remainder): fmod, moved to b's sign; a zero takes b's sign. */
static double loco2_remainder(double a, double b) {
    double mod = fmod(a, b);
    if (b == 0.0) return mod;
    if (mod != 0.0) {
        if ((b < 0.0) != (mod < 0.0)) mod += b;
    } else {
        mod = copysign(0.0, b);
    }
    return mod;
}

PyDoc_STRVAR(set_facing_doc,
"set_facing(rows, mask, ang, period, facing) -> None\n\n"
"``facing[rows[j]] = ang[j] % period`` (numpy's float remainder) where ``mask[j]``: the walkers'\n"
"new facings in sc2pool.engine.sim.systems.locomotion.Locomotion.move and move_to_points.\n"
"``rows``: int64 distinct unit rows; ``mask``: bool and ``ang``: float64, one per row;\n"
"``facing``: float64 per unit row (strided or not), written in place.");

static PyObject *py_set_facing(PyObject *self, PyObject *args) {
    PyObject *rows_o, *mask_o, *ang_o, *facing_o;
    double period;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOdO:set_facing", &rows_o, &mask_o, &ang_o, &period, &facing_o)) return NULL;
    const char *fn = "set_facing";
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t k;
    kn_column facing;
    if (!kn_col(&b, facing_o, 'd', KN_ANY, KN_STRIDED | KN_WRITABLE, &facing, fn, "facing")) goto done;
    const long long *rows = kn_vec(&b, rows_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "rows");
    const unsigned char *mask = rows ? kn_vec(&b, mask_o, '?', k, KN_CONTIG, NULL, fn, "mask") : NULL;
    const double *ang = mask ? kn_vec(&b, ang_o, 'd', k, KN_CONTIG, NULL, fn, "ang") : NULL;
    if (ang == NULL || !kn_rows_ok(rows, k, facing.len, fn, "rows")) goto done;
    for (Py_ssize_t j = 0; j < k; j++)
        if (mask[j]) KN_AT(double, facing, rows[j]) = loco2_remainder(ang[j], period);
    ret = Py_NewRef(Py_None);
done:
    kn_release(&b);
    return ret;
}
