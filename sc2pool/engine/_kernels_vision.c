/* Vision kernels (sc2pool/engine/sim/systems/vision.py); #included by _kernels.c. */

#define VISION_EDGE 1e-9 /* _EDGE in vision.py: the margin of a row span's first guess */

/* ceil() and floor() without the call into libm where a long long holds the value (the only
 * difference, 0.0 for -0.0, changes no sum, comparison or cell below). */
static inline double vision_ceil(double v) {
    if (!(fabs(v) < 0x1p52)) return ceil(v);
    double t = (double)(long long)v;
    return t < v ? t + 1.0 : t;
}

static inline double vision_floor(double v) {
    if (!(fabs(v) < 0x1p52)) return floor(v);
    double t = (double)(long long)v;
    return t > v ? t - 1.0 : t;
}

/* row[c] |= level[c] <= top for c in [a, b]: 16 cells at a time where the compiler has vector
 * types (their comparison yields -1 per true lane, masked to 1), one at a time otherwise. */
static inline void vision_mark(unsigned char *row, const signed char *level, long a, long b, signed char top) {
    long c = a;
#if defined(__GNUC__)
    typedef signed char v16 __attribute__((vector_size(16)));
    v16 tops = {0}, ones = {0};
    tops += top;
    ones += 1;
    for (; c + 16 <= b + 1; c += 16) {
        v16 lv, seen;
        memcpy(&lv, level + c, sizeof lv);
        memcpy(&seen, row + c, sizeof seen);
        seen |= (v16)(lv <= tops) & ones;
        memcpy(row + c, &seen, sizeof seen);
    }
#endif
    for (; c <= b; c++) row[c] |= level[c] <= top;
}

/* Vision.seen_now's spans in sc2pool/engine/sim/systems/vision.py, drawn straight into the grid:
 * per eye (x, y, squared sight s2, highest level seen) and row of its disc, the same first guess
 * from the square root and the same exact test at both ends, so the same cells; a cell of the span
 * is seen where `level` (NULL on a flat arena) is not above the eye's `top`.  The Python twin
 * takes the rows within ceil(max sight) + 1 of every eye's own row; this takes those within
 * ceil(sqrt(s2)) + 1 of each eye's: the rows in between are farther than its sight by more than
 * half a cell, where the test's `rem >= 0` already rejects them. */
static void seen_cells(unsigned char *seen, const signed char *level, long w, long h,
                       const double *xs, const double *ys, const double *s2s, const signed char *tops,
                       Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        double x = xs[i], y = ys[i], s2 = s2s[i];
        double xm = x - 0.5;
        double reach = ceil(sqrt(s2)) + 1.0;
        double yi = trunc(y); /* numpy's astype(int64): toward zero */
        double first = yi - reach, last = yi + reach;
        if (last < 0.0 || first > (double)(h - 1)) continue;
        long r0 = first < 0.0 ? 0 : (long)first, r1 = last > (double)(h - 1) ? h - 1 : (long)last;
        for (long cy = r0; cy <= r1; cy++) {
            double gy = ((double)cy + 0.5) - y;
            double gy2 = gy * gy;
            double rem = s2 - gy2;
            if (!(rem >= 0.0)) continue;
            double r = sqrt(rem);
            double lo = vision_ceil((xm - r) - VISION_EDGE); /* the first cell of the span, or the one before it */
            double hi = vision_floor((xm + r) + VISION_EDGE); /* the last one, or the one after it */
            double g = (lo + 0.5) - x;
            if (g * g + gy2 > s2) lo += 1.0;
            g = (hi + 0.5) - x;
            if (g * g + gy2 > s2) hi -= 1.0;
            if (lo < 0.0) lo = 0.0;
            if (hi > (double)(w - 1)) hi = (double)(w - 1);
            if (!(lo <= hi)) continue;
            unsigned char *row = seen + cy * w;
            long a = (long)lo, b = (long)hi;
            if (level == NULL) {
                memset(row + a, 1, (size_t)(b - a + 1));
            } else {
                vision_mark(row, level + cy * w, a, b, tops[i]);
            }
        }
    }
}

PyDoc_STRVAR(seen_cells_doc,
"seen_cells(seen, level, w, h, xs, ys, s2, top) -> None\n\n"
"Sets the cells of ``seen`` (bool, h x w, C order, writable) that the eyes see: the compiled twin\n"
"of the grid sc2pool.engine.sim.systems.vision.Vision.seen_now builds (cells it does not see are\n"
"left as they were).  ``xs``, ``ys`` and ``s2`` (float64) are each eye's place and squared sight,\n"
"``level`` the cells' cliff levels (int8, h x w) and ``top`` the highest level each eye sees\n"
"(int8), both None on a flat arena: Vision.eyes.");

static PyObject *py_seen_cells(PyObject *self, PyObject *args) {
    PyObject *seen_obj, *level_obj, *xs_obj, *ys_obj, *s2_obj, *top_obj;
    Py_ssize_t w, h;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnnOOOO:seen_cells", &seen_obj, &level_obj, &w, &h, &xs_obj, &ys_obj, &s2_obj, &top_obj))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "seen_cells: the grid's width and height must be positive");
        return NULL;
    }
    if ((level_obj == Py_None) != (top_obj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "seen_cells: level and top must both be None or both be given");
        return NULL;
    }
    const char *fn = "seen_cells";
    kn_bufs b;
    b.n = 0;
    PyObject *result = NULL;
    Py_ssize_t n;
    void *lp = NULL, *tp = NULL;
    unsigned char *seen = kn_vec(&b, seen_obj, '?', w * h, KN_WRITABLE, NULL, fn, "seen");
    const double *xs = seen ? kn_vec(&b, xs_obj, 'd', KN_ANY, KN_CONTIG, &n, fn, "xs") : NULL;
    const double *ys = xs ? kn_vec(&b, ys_obj, 'd', n, KN_CONTIG, NULL, fn, "ys") : NULL;
    const double *s2 = ys ? kn_vec(&b, s2_obj, 'd', n, KN_CONTIG, NULL, fn, "s2") : NULL;
    if (s2 == NULL || !kn_vec_opt(&b, level_obj, 'b', w * h, KN_CONTIG, fn, "level", &lp) ||
        !kn_vec_opt(&b, top_obj, 'b', n, KN_CONTIG, fn, "top", &tp))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!isfinite(xs[i]) || !isfinite(ys[i]) || !isfinite(s2[i]) || s2[i] < 0.0) {
            PyErr_Format(PyExc_ValueError, "seen_cells: eye %zd is not finite or its s2 is negative", i);
            goto done;
        }
    }
    seen_cells(seen, lp, (long)w, (long)h, xs, ys, s2, tp, n);
    result = Py_NewRef(Py_None);
done:
    kn_release(&b);
    return result;
}

/* The cell of a point along one axis, as Vision.sees_from takes it: numpy's astype(int64) (toward
 * zero) clamped to [0, last]; the caller checks that |v| < 2^62 first. */
static inline long vision_cell(double v, long last) {
    long c = (long)v;
    return c < 0 ? 0 : (c > last ? last : c);
}

/* Vision.sees_from in sc2pool/engine/sim/systems/vision.py, point by point: seen[k] when the
 * centre of (xs[k], ys[k])'s cell is within an eye's squared sight, ((cx + 0.5) - ox) ** 2 +
 * ((cy + 0.5) - oy) ** 2 <= s2 in that order, and (with `level`) its level not above the eye's
 * `top`. */
static void sees_points(unsigned char *seen, const double *xs, const double *ys, Py_ssize_t n,
                        const signed char *level, long w, long h, const double *ox, const double *oy,
                        const double *s2, const signed char *tops, Py_ssize_t m) {
    for (Py_ssize_t k = 0; k < n; k++) {
        long cx = vision_cell(xs[k], w - 1), cy = vision_cell(ys[k], h - 1);
        double gx0 = (double)cx + 0.5, gy0 = (double)cy + 0.5;
        signed char lv = level != NULL ? level[cy * w + cx] : 0;
        unsigned char any = 0;
        for (Py_ssize_t j = 0; j < m && !any; j++) {
            double gx = gx0 - ox[j], gy = gy0 - oy[j];
            any = gx * gx + gy * gy <= s2[j] && (level == NULL || lv <= tops[j]);
        }
        seen[k] = any;
    }
}

PyDoc_STRVAR(sees_points_doc,
"sees_points(seen, xs, ys, level, w, h, ox, oy, s2, top) -> None\n\n"
"Sets seen[k] (bool, writable) to whether the eyes see the cell of (xs[k], ys[k]): the compiled\n"
"twin of sc2pool.engine.sim.systems.vision.Vision.sees_from.  ``xs`` and ``ys`` are float64\n"
"points, ``level`` the cells' cliff levels (int8, h x w, C order); ``ox``, ``oy``, ``s2`` and\n"
"``top`` are Vision.eyes (``level`` and ``top`` both None on a flat arena).");

static PyObject *py_sees_points(PyObject *self, PyObject *args) {
    PyObject *seen_obj, *xs_obj, *ys_obj, *level_obj, *ox_obj, *oy_obj, *s2_obj, *top_obj;
    Py_ssize_t w, h;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOnnOOOO:sees_points", &seen_obj, &xs_obj, &ys_obj, &level_obj, &w, &h,
                          &ox_obj, &oy_obj, &s2_obj, &top_obj))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "sees_points: the grid's width and height must be positive");
        return NULL;
    }
    if ((level_obj == Py_None) != (top_obj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "sees_points: level and top must both be None or both be given");
        return NULL;
    }
    const char *fn = "sees_points";
    kn_bufs b;
    b.n = 0;
    PyObject *result = NULL;
    Py_ssize_t n, m;
    void *lp = NULL, *tp = NULL;
    const double *xs = kn_vec(&b, xs_obj, 'd', KN_ANY, KN_CONTIG, &n, fn, "xs");
    const double *ys = xs ? kn_vec(&b, ys_obj, 'd', n, KN_CONTIG, NULL, fn, "ys") : NULL;
    unsigned char *seen = ys ? kn_vec(&b, seen_obj, '?', n, KN_WRITABLE, NULL, fn, "seen") : NULL;
    const double *ox = seen ? kn_vec(&b, ox_obj, 'd', KN_ANY, KN_CONTIG, &m, fn, "ox") : NULL;
    const double *oy = ox ? kn_vec(&b, oy_obj, 'd', m, KN_CONTIG, NULL, fn, "oy") : NULL;
    const double *s2 = oy ? kn_vec(&b, s2_obj, 'd', m, KN_CONTIG, NULL, fn, "s2") : NULL;
    if (s2 == NULL || !kn_vec_opt(&b, level_obj, 'b', w * h, KN_CONTIG, fn, "level", &lp) ||
        !kn_vec_opt(&b, top_obj, 'b', m, KN_CONTIG, fn, "top", &tp))
        goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!(fabs(xs[k]) < 0x1p62 && fabs(ys[k]) < 0x1p62)) {
            PyErr_Format(PyExc_ValueError, "sees_points: point %zd is not finite or is off any map", k);
            goto done;
        }
    }
    sees_points(seen, xs, ys, n, lp, (long)w, (long)h, ox, oy, s2, tp, m);
    result = Py_NewRef(Py_None);
done:
    kn_release(&b);
    return result;
}
