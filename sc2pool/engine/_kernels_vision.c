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

/* Borrow a C-contiguous float64 vector of `n` items (n < 0: any length, stored in *n); 0 with an
 * exception set otherwise. */
static int vision_doubles(PyObject *obj, Py_buffer *view, Py_ssize_t *n, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    if (strcmp(view->format, "d") != 0 || (*n >= 0 && view->len != *n * (Py_ssize_t)sizeof(double))) {
        if (*n >= 0)
            PyErr_Format(PyExc_ValueError, "%s must be a float64 array of %zd items", what, *n);
        else
            PyErr_Format(PyExc_ValueError, "%s must be a float64 array", what);
        PyBuffer_Release(view);
        return 0;
    }
    *n = view->len / (Py_ssize_t)sizeof(double);
    return 1;
}

/* Borrow a C-contiguous int8 buffer of `n` items; 0 with an exception set otherwise. */
static int vision_int8s(PyObject *obj, Py_buffer *view, Py_ssize_t n, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    if (strcmp(view->format, "b") != 0 || view->len != n) {
        PyErr_Format(PyExc_ValueError, "%s must be an int8 array of %zd items", what, n);
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
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
    PyObject *result = NULL;
    Py_buffer sv, lv = {0}, xv, yv, qv, tv = {0};
    Py_ssize_t n = -1;
    if (PyObject_GetBuffer(seen_obj, &sv, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) return NULL;
    if (strcmp(sv.format, "?") != 0 || sv.len != w * h) {
        PyErr_Format(PyExc_ValueError, "seen_cells: seen must be a writable bool array of %zd items", w * h);
        goto done_seen;
    }
    if (!vision_doubles(xs_obj, &xv, &n, "seen_cells: xs")) goto done_seen;
    if (!vision_doubles(ys_obj, &yv, &n, "seen_cells: ys")) goto done_xs;
    if (!vision_doubles(s2_obj, &qv, &n, "seen_cells: s2")) goto done_ys;
    if (level_obj != Py_None) {
        if (!vision_int8s(level_obj, &lv, w * h, "seen_cells: level")) goto done_s2;
        if (!vision_int8s(top_obj, &tv, n, "seen_cells: top")) goto done_level;
    }
    {
        const double *xs = (const double *)xv.buf, *ys = (const double *)yv.buf, *s2 = (const double *)qv.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!isfinite(xs[i]) || !isfinite(ys[i]) || !isfinite(s2[i]) || s2[i] < 0.0) {
                PyErr_Format(PyExc_ValueError, "seen_cells: eye %zd is not finite or its s2 is negative", i);
                goto done_top;
            }
        }
        seen_cells((unsigned char *)sv.buf, (const signed char *)lv.buf, (long)w, (long)h,
                   xs, ys, s2, (const signed char *)tv.buf, n);
        Py_INCREF(Py_None);
        result = Py_None;
    }
done_top:
    if (tv.obj != NULL) PyBuffer_Release(&tv);
done_level:
    if (lv.obj != NULL) PyBuffer_Release(&lv);
done_s2:
    PyBuffer_Release(&qv);
done_ys:
    PyBuffer_Release(&yv);
done_xs:
    PyBuffer_Release(&xv);
done_seen:
    PyBuffer_Release(&sv);
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
    PyObject *result = NULL;
    Py_buffer sv, xv, yv, lv = {0}, oxv, oyv, qv, tv = {0};
    Py_ssize_t n = -1, m = -1;
    if (!vision_doubles(xs_obj, &xv, &n, "sees_points: xs")) return NULL;
    if (!vision_doubles(ys_obj, &yv, &n, "sees_points: ys")) goto done_xs;
    if (PyObject_GetBuffer(seen_obj, &sv, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) goto done_ys;
    if (strcmp(sv.format, "?") != 0 || sv.len != n) {
        PyErr_Format(PyExc_ValueError, "sees_points: seen must be a writable bool array of %zd items", n);
        goto done_seen;
    }
    if (!vision_doubles(ox_obj, &oxv, &m, "sees_points: ox")) goto done_seen;
    if (!vision_doubles(oy_obj, &oyv, &m, "sees_points: oy")) goto done_ox;
    if (!vision_doubles(s2_obj, &qv, &m, "sees_points: s2")) goto done_oy;
    if (level_obj != Py_None) {
        if (!vision_int8s(level_obj, &lv, w * h, "sees_points: level")) goto done_s2;
        if (!vision_int8s(top_obj, &tv, m, "sees_points: top")) goto done_level;
    }
    {
        const double *xs = (const double *)xv.buf, *ys = (const double *)yv.buf;
        for (Py_ssize_t k = 0; k < n; k++) {
            if (!(fabs(xs[k]) < 0x1p62 && fabs(ys[k]) < 0x1p62)) {
                PyErr_Format(PyExc_ValueError, "sees_points: point %zd is not finite or is off any map", k);
                goto done_top;
            }
        }
        sees_points((unsigned char *)sv.buf, xs, ys, n, (const signed char *)lv.buf, (long)w, (long)h,
                    (const double *)oxv.buf, (const double *)oyv.buf, (const double *)qv.buf,
                    (const signed char *)tv.buf, m);
        Py_INCREF(Py_None);
        result = Py_None;
    }
done_top:
    if (tv.obj != NULL) PyBuffer_Release(&tv);
done_level:
    if (lv.obj != NULL) PyBuffer_Release(&lv);
done_s2:
    PyBuffer_Release(&qv);
done_oy:
    PyBuffer_Release(&oyv);
done_ox:
    PyBuffer_Release(&oxv);
done_seen:
    PyBuffer_Release(&sv);
done_ys:
    PyBuffer_Release(&yv);
done_xs:
    PyBuffer_Release(&xv);
    return result;
}
