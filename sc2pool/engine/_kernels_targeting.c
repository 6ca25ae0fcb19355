/* Target acquisition and the workers' walks: C twins of the per-unit passes of
 * sc2pool/engine/sim/systems/targeting.py (the steps of Targeting.resolve, which resolve_pass in
 * _kernels_tgt2.c runs in one call; _unseen, nearest) and of the walkers' loop of
 * sc2pool/engine/sim/systems/workers.py (Workers.place_walkers).  Included by _kernels.c;
 * tests/engine/test_kernels_targeting.py and test_kernels_tgt2.py hold each to its Python twin. */

/* ------------------------------------------------------------------ Targeting.resolve */

/* _aim in sc2pool/engine/sim/systems/targeting.py: each unit's offset and edge distance to its
 * current target (`cur`, -1 for none: numpy's take reads the last unit then), whether it keeps
 * it, its target this loop, and the rows that look for a new one (into `sc`); returns how many
 * rows look, or -1 with a ValueError for a target row out of range. */
static Py_ssize_t tgt_aim(Py_ssize_t n, const double *x, const double *y, const long long *cur,
                          kn_column radius, double r_all, kn_column rng, kn_column can_attack,
                          kn_column auto_kind, const kn_column *explicit_, const kn_column *unheld,
                          kn_column eng, kn_column scan, long long loop, double *dx, double *dy,
                          double *d_edge, long long *tgt, long long *sc) {
    Py_ssize_t k = 0;
    int common = r_all == r_all; /* not NaN: one radius for every unit */
    for (Py_ssize_t i = 0; i < n; i++) {
        long long c = cur[i];
        long long t = c < 0 ? c + n : c; /* (as numpy's take: -1 is the last unit) */
        if (t < 0 || t >= n) {
            PyErr_Format(PyExc_ValueError, "resolve_pass: cur[%zd] = %lld is no row of %zd units", i, c, n);
            return -1;
        }
        double ddx = x[t] - x[i], ddy = y[t] - y[i];
        double d = sqrt(ddx * ddx + ddy * ddy);
        if (common) {
            d -= r_all;
            d -= r_all;
        } else {
            d -= KN_AT(double, radius, i);
            d -= KN_AT(double, radius, t);
        }
        dx[i] = ddx;
        dy[i] = ddy;
        d_edge[i] = d;
        int has_i = c >= 0;
        int keep = d <= KN_AT(double, rng, i) || (unheld != NULL && KN_AT(unsigned char, *unheld, i));
        keep = keep && has_i;
        int automatic = KN_AT(unsigned char, can_attack, i) && KN_AT(unsigned char, auto_kind, i);
        tgt[i] = ((explicit_ != NULL && KN_AT(unsigned char, *explicit_, i)) || (automatic && keep)) ? c : -1;
        if (automatic && !keep) {
            KN_AT(long long, eng, i) = 0;
            if (KN_AT(long long, scan, i) <= loop || has_i) sc[k++] = i;
        }
    }
    return k;
}

/* _engage in sc2pool/engine/sim/systems/targeting.py for one looker, row `r`, that found the row
 * `t` (-1: none; `gap`: how far beyond its acquisition range the nearest hostile is, not NaN),
 * written into the arrays of Targeting.resolve. */
typedef struct {
    const double *x, *y;
    kn_column radius, speed, tag, eng, scan, tgt, tsafe, dx, dy, d_edge;
    double max_speed;
    long long loop;
} tgt_engaged;

static void tgt_engage(const tgt_engaged *e, long long r, long long t, double gap) {
    KN_AT(long long, e->tgt, r) = t;
    if (t >= 0) {
        KN_AT(long long, e->eng, r) = KN_AT(long long, e->tag, t);
        KN_AT(long long, e->tsafe, r) = t;
        double ddx = e->x[t] - e->x[r], ddy = e->y[t] - e->y[r];
        KN_AT(double, e->dx, r) = ddx;
        KN_AT(double, e->dy, r) = ddy;
        KN_AT(double, e->d_edge, r) =
            sqrt(ddx * ddx + ddy * ddy) - KN_AT(double, e->radius, r) - KN_AT(double, e->radius, t);
    } else { /* (numpy's maximum and minimum, then astype(int64): toward zero) */
        double closing = KN_AT(double, e->speed, r) + e->max_speed;
        double wait = closing > 0 ? gap / closing : INFINITY;
        wait = wait < 1 ? 1 : wait;
        wait = wait > (double)(1 << 30) ? (double)(1 << 30) : wait;
        KN_AT(long long, e->scan, r) = e->loop + (long long)wait;
    }
}

/* Targeting.nearest for one row `r` (its type row checked below `types`): among the units `cols`
 * (ascending rows, their type rows checked) of another owner whose type r's type can hit
 * (`can_hit`: types x types), the nearest by edge distance (the first of equals), or 0 with an
 * infinite *dist when there is none. */
typedef struct {
    kn_column x, y, radius, ti, owner, cols;
    const unsigned char *can_hit;
    long long types;
    double common; /* the radius every candidate has, or NaN */
} tgt_hostiles;

static long long tgt_nearest(const tgt_hostiles *h, long long r, double *dist) {
    const unsigned char *hits = h->can_hit + KN_AT(long long, h->ti, r) * h->types;
    double xr = KN_AT(double, h->x, r), yr = KN_AT(double, h->y, r), least = INFINITY;
    long long own = KN_AT(long long, h->owner, r), at = -1;
    int by_radius = h->common != h->common; /* (NaN: the candidates' radii differ) */
    for (Py_ssize_t j = 0; j < h->cols.len; j++) {
        long long c = KN_AT(long long, h->cols, j);
        if (KN_AT(long long, h->owner, c) == own || !hits[KN_AT(long long, h->ti, c)]) continue;
        double ddx = KN_AT(double, h->x, c) - xr, ddy = KN_AT(double, h->y, c) - yr;
        double v = ddx * ddx + ddy * ddy;
        if (by_radius) v = sqrt(v) - KN_AT(double, h->radius, c);
        if (v < least) { /* (strictly: the first of equals, as argmin) */
            least = v;
            at = c;
        }
    }
    if (at < 0) {
        *dist = INFINITY;
        return 0;
    }
    *dist = (by_radius ? least : sqrt(least) - h->common) - KN_AT(double, h->radius, r);
    return at;
}

/* 1 when every unit of `cols` is a row below `n` of a type row below `types`; 0 with a
 * ValueError naming `fn` otherwise. */
static int tgt_cols_ok(kn_column cols, kn_column ti, Py_ssize_t n, long long types, const char *fn) {
    for (Py_ssize_t j = 0; j < cols.len; j++) {
        long long c = KN_AT(long long, cols, j);
        if (c < 0 || c >= n || KN_AT(long long, ti, c) < 0 || KN_AT(long long, ti, c) >= types) {
            PyErr_Format(PyExc_ValueError, "%s: cols[%zd] is no row of a unit of a known type", fn, j);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ Targeting.nearest */

PyDoc_STRVAR(nearest_hostile_doc,
"nearest_hostile(x, y, radius, ti, owner, rows, cols, common, can_hit, best, dist) -> None\n\n"
"The compiled twin of sc2pool.engine.sim.systems.targeting.Targeting.nearest: for each of\n"
"``rows``, among the units ``cols`` (ascending rows) of another owner whose type its type can\n"
"hit (``can_hit``: bool, types x types, C order), the nearest by edge distance (the first of\n"
"equals), into ``best`` (its row; 0 if none) and ``dist`` (that distance; inf if none).\n"
"``common``: the radius every candidate has (the nearest centre is then the nearest edge), or NaN.");

static PyObject *py_nearest_hostile(PyObject *self, PyObject *args) {
    PyObject *o[11];
    double common;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOdOOO:nearest_hostile", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &common, &o[8], &o[9], &o[10]))
        return NULL;
    const char *fn = "nearest_hostile";
    kn_bufs b;
    b.n = 0;
    int ok = 0;
    kn_column x, y, radius, ti, owner, rows, cols;
    if (!kn_col(&b, o[0], 'd', KN_ANY, KN_STRIDED, &x, fn, "x") ||
        !kn_col(&b, o[1], 'd', x.len, KN_STRIDED, &y, fn, "y") ||
        !kn_col(&b, o[2], 'd', x.len, KN_STRIDED, &radius, fn, "radius") ||
        !kn_col(&b, o[3], 'q', x.len, KN_STRIDED, &ti, fn, "ti") ||
        !kn_col(&b, o[4], 'q', x.len, KN_STRIDED, &owner, fn, "owner") ||
        !kn_col(&b, o[5], 'q', KN_ANY, KN_STRIDED, &rows, fn, "rows") ||
        !kn_col(&b, o[6], 'q', KN_ANY, KN_STRIDED, &cols, fn, "cols"))
        goto done;
    Py_ssize_t n = x.len, m = rows.len;
    const Py_buffer *hit = kn_borrow(&b, o[8], '?', KN_ANY, KN_CONTIG, NULL, fn, "can_hit");
    if (hit == NULL) goto done;
    if (hit->ndim != 2 || hit->shape[1] != hit->shape[0]) {
        PyErr_SetString(PyExc_ValueError, "nearest_hostile: can_hit must be a square table");
        goto done;
    }
    long long *best = kn_vec(&b, o[9], 'q', m, KN_WRITABLE, NULL, fn, "best");
    double *dist = best ? kn_vec(&b, o[10], 'd', m, KN_WRITABLE, NULL, fn, "dist") : NULL;
    tgt_hostiles hs = {x, y, radius, ti, owner, cols, hit->buf, hit->shape[0], common};
    ok = dist != NULL && tgt_cols_ok(cols, ti, n, hs.types, fn);
    for (Py_ssize_t i = 0; ok && i < m; i++) {
        long long r = KN_AT(long long, rows, i);
        if (r < 0 || r >= n || KN_AT(long long, ti, r) < 0 || KN_AT(long long, ti, r) >= hs.types) {
            PyErr_Format(PyExc_ValueError, "%s: rows[%zd] is no row of a unit of a known type", fn, i);
            ok = 0;
            break;
        }
        best[i] = tgt_nearest(&hs, r, &dist[i]);
    }
done:
    kn_release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ Targeting._unseen */

/* _unseen_candidates in sc2pool/engine/sim/systems/targeting.py for unit `i` and its target row
 * `t` (0 <= t < n): whether the target lies beyond the unit's sight (offset `ddx`, `ddy`) or, for a
 * ground unit, on a higher level of the h x w grid `level` than its own; -1 with a ValueError
 * naming `fn` for a position that is not finite. */
static int tgt_unseen_candidate(const double *x, const double *y, Py_ssize_t i, long long t, double ddx, double ddy,
                                double sight, int ground, const signed char *level, Py_ssize_t w, Py_ssize_t h,
                                const char *fn) {
    if (ddx * ddx + ddy * ddy > sight * sight) return 1;
    if (!ground) return 0;
    /* the cells as numpy's astype(int64) (toward zero), clipped to the grid */
    double p[4] = {x[i], y[i], x[t], y[t]};
    long long cell[4];
    for (int j = 0; j < 4; j++) {
        if (!(p[j] > -9.0e18 && p[j] < 9.0e18)) {
            PyErr_Format(PyExc_ValueError, "%s: the position of unit %lld is not finite", fn,
                         j < 2 ? (long long)i : t);
            return -1;
        }
        long long c = (long long)p[j], last = (j % 2 ? h : w) - 1;
        cell[j] = c < 0 ? 0 : c > last ? last : c;
    }
    return level[cell[3] * w + cell[2]] > level[cell[1] * w + cell[0]];
}

PyDoc_STRVAR(unseen_candidates_doc,
"unseen_candidates(xy, tgt, dx, dy, sight, ground, level, w, h, out) -> int\n\n"
"The compiled twin of sc2pool.engine.sim.systems.targeting._unseen_candidates: writes into the\n"
"int64 array ``out`` the rows (ascending) whose target is on a higher cliff level than a ground\n"
"attacker or beyond the attacker's sight, and returns how many.  ``level`` is the h x w int8\n"
"grid of cliff levels (C order), ``xy`` the units' x then their y; the other arrays hold one\n"
"item per unit.");

static PyObject *py_unseen_candidates(PyObject *self, PyObject *args) {
    PyObject *o[10];
    Py_ssize_t w, h;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOnnO:unseen_candidates", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &w, &h, &o[9]))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "unseen_candidates: the grid's width and height must be positive");
        return NULL;
    }
    const char *fn = "unseen_candidates";
    kn_bufs b;
    b.n = 0;
    Py_ssize_t k = -1;
    kn_column tgt, dx, dy, sight, ground;
    int ok = kn_col(&b, o[1], 'q', KN_ANY, KN_STRIDED, &tgt, fn, "tgt");
    Py_ssize_t n = ok ? tgt.len : 0;
    const double *x = ok ? kn_vec(&b, o[0], 'd', 2 * n, KN_CONTIG, NULL, fn, "xy") : NULL, *y = x ? x + n : NULL;
    ok = ok && x != NULL && kn_col(&b, o[2], 'd', n, KN_STRIDED, &dx, fn, "dx") &&
         kn_col(&b, o[3], 'd', n, KN_STRIDED, &dy, fn, "dy") &&
         kn_col(&b, o[4], 'd', n, KN_STRIDED, &sight, fn, "sight") &&
         kn_col(&b, o[5], '?', n, KN_STRIDED, &ground, fn, "ground");
    const signed char *level = ok ? kn_vec(&b, o[6], 'b', w * h, KN_CONTIG, NULL, fn, "level") : NULL;
    long long *out = level ? kn_vec(&b, o[9], 'q', n, KN_WRITABLE, NULL, fn, "out") : NULL;
    if (out != NULL) {
        k = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            long long t = KN_AT(long long, tgt, i);
            if (t < 0) continue;
            if (t >= n) {
                PyErr_Format(PyExc_ValueError, "%s: tgt[%zd] = %lld is no row of %zd units", fn, i, t, n);
                k = -1;
                break;
            }
            int far = tgt_unseen_candidate(x, y, i, t, KN_AT(double, dx, i), KN_AT(double, dy, i),
                                           KN_AT(double, sight, i), KN_AT(unsigned char, ground, i), level, w, h, fn);
            if (far < 0) {
                k = -1;
                break;
            }
            if (far) out[k++] = i;
        }
    }
    kn_release(&b);
    return k < 0 ? NULL : PyLong_FromSsize_t(k);
}

/* ------------------------------------------------------------------ Workers.place_walkers */

/* The float of a walker's field: Python's float(v) for a float or an int. */
static inline int tgt_field(PyObject *v, double *out) {
    if (PyFloat_Check(v)) {
        *out = PyFloat_AS_DOUBLE(v);
        return 1;
    }
    *out = PyFloat_AsDouble(v);
    return !(*out == -1.0 && PyErr_Occurred());
}

/* _on_path in sc2pool/engine/sim/systems/workers.py: the point `s` along a walk from (ox, oy)
 * along `path` (a tuple of its lengths so far, a list of floats, and its points, a list of (x, y)
 * tuples, as long); 0 with an exception set for any other shape. */
static int tgt_on_path(PyObject *path, double ox, double oy, double s, double *px, double *py) {
    PyObject *cum = PyTuple_Check(path) && PyTuple_GET_SIZE(path) == 2 ? PyTuple_GET_ITEM(path, 0) : NULL;
    PyObject *pts = cum != NULL ? PyTuple_GET_ITEM(path, 1) : NULL;
    if (cum == NULL || !PyList_Check(cum) || !PyList_Check(pts) || PyList_GET_SIZE(cum) == 0 ||
        PyList_GET_SIZE(pts) != PyList_GET_SIZE(cum)) {
        PyErr_SetString(PyExc_ValueError,
                        "place_walkers: a path must be (lengths, points), two lists of one length");
        return 0;
    }
    Py_ssize_t len = PyList_GET_SIZE(cum), lo = 0, hi = len;
    while (lo < hi) { /* bisect_left, as the bisect module's loop */
        Py_ssize_t mid = (lo + hi) / 2;
        double v;
        if (!tgt_field(PyList_GET_ITEM(cum, mid), &v)) return 0;
        if (v < s) lo = mid + 1;
        else hi = mid;
    }
    double ax = ox, ay = oy, start = 0.0, end, bx, by;
    Py_ssize_t i = lo < len ? lo : len - 1;
    PyObject *b = PyList_GET_ITEM(pts, i), *a = i > 0 ? PyList_GET_ITEM(pts, i - 1) : NULL;
    if (!PyTuple_Check(b) || PyTuple_GET_SIZE(b) != 2 ||
        (a != NULL && (!PyTuple_Check(a) || PyTuple_GET_SIZE(a) != 2))) {
        PyErr_SetString(PyExc_ValueError, "place_walkers: a path's points must be (x, y) tuples");
        return 0;
    }
    if (!tgt_field(PyTuple_GET_ITEM(b, 0), &bx) || !tgt_field(PyTuple_GET_ITEM(b, 1), &by)) return 0;
    if (lo >= len) { /* past the end: its last point */
        *px = bx;
        *py = by;
        return 1;
    }
    if (a != NULL && (!tgt_field(PyTuple_GET_ITEM(a, 0), &ax) || !tgt_field(PyTuple_GET_ITEM(a, 1), &ay) ||
                      !tgt_field(PyList_GET_ITEM(cum, i - 1), &start)))
        return 0;
    if (!tgt_field(PyList_GET_ITEM(cum, i), &end)) return 0;
    double seg = end - start;
    double f = seg > 0.0 ? (s - start) / seg : 1.0;
    *px = ax + (bx - ax) * f;
    *py = ay + (by - ay) * f;
    return 1;
}

PyDoc_STRVAR(place_walkers_doc,
"place_walkers(walkers, now, x, y, half_acc, acc_dist, speed, t_acc) -> None\n\n"
"The compiled twin of sc2pool.engine.sim.systems.workers._walker_positions, writing each\n"
"walker's position at loop ``now`` straight into the float64 arrays ``x`` and ``y`` at its row.\n"
"``walkers`` iterates over the walkers' _Walker tuples; the rest are the SCV's walk constants.");

static PyObject *py_place_walkers(PyObject *self, PyObject *args) {
    PyObject *walkers, *xo, *yo;
    double now, half_acc, acc_dist, speed, t_acc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OdOOdddd:place_walkers", &walkers, &now, &xo, &yo, &half_acc, &acc_dist,
                          &speed, &t_acc))
        return NULL;
    kn_bufs b;
    b.n = 0;
    Py_ssize_t n;
    double *x = kn_vec(&b, xo, 'd', KN_ANY, KN_WRITABLE, &n, "place_walkers", "x");
    double *y = x ? kn_vec(&b, yo, 'd', n, KN_WRITABLE, NULL, "place_walkers", "y") : NULL;
    PyObject *it = y ? PyObject_GetIter(walkers) : NULL, *w;
    int ok = it != NULL;
    while (ok && (w = PyIter_Next(it)) != NULL) {
        double f[9]; /* ox, oy, dx, dy, t0, length, total, a_end, c_end */
        Py_ssize_t r = -1;
        ok = PyTuple_Check(w) && PyTuple_GET_SIZE(w) == 11;
        if (!ok) PyErr_SetString(PyExc_ValueError, "place_walkers: a walker must be a tuple of 11 items");
        if (ok) {
            r = PyNumber_AsSsize_t(PyTuple_GET_ITEM(w, 0), PyExc_OverflowError);
            ok = !(r == -1 && PyErr_Occurred());
        }
        if (ok && (r < 0 || r >= n)) {
            PyErr_Format(PyExc_ValueError, "place_walkers: row %zd is no row of %zd units", r, n);
            ok = 0;
        }
        for (int j = 0; ok && j < 9; j++) ok = tgt_field(PyTuple_GET_ITEM(w, j + 1), &f[j]);
        if (ok) {
            double ox = f[0], oy = f[1], ddx = f[2], ddy = f[3], length = f[5], total = f[6], s;
            double k = now - f[4];
            if (k >= total) s = length;
            else if (k <= 0.0) s = 0.0;
            else if (k < f[7]) s = half_acc * k * k;
            else if (k < f[8]) s = acc_dist + speed * (k - t_acc);
            else {
                double left = total - k;
                s = length - half_acc * left * left;
            }
            PyObject *path = PyTuple_GET_ITEM(w, 10);
            if (path == Py_None) {
                double g = length > 0.0 ? s / length : 1.0;
                x[r] = ox + ddx * g;
                y[r] = oy + ddy * g;
            } else {
                ok = tgt_on_path(path, ox, oy, s, &x[r], &y[r]);
            }
        }
        Py_DECREF(w);
    }
    if (ok && it != NULL && PyErr_Occurred()) ok = 0; /* (the iteration itself failed) */
    Py_XDECREF(it);
    kn_release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}
