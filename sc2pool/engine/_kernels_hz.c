/* Targets out of sight: the C twin of the vision test of Targeting._unseen in
 * sc2pool/engine/sim/systems/targeting.py (_unseen_of: each candidate's player's Vision.eyes and
 * Vision.sees_from), taking the eyes straight from the unit columns and the scans instead of
 * building them player by player.  Included by _kernels.c;
 * tests/engine/test_kernels_hz.py holds it to its Python twin. */

#define HZ_OWNERS 32   /* owner ids the observers are grouped by: the players and the neutral 16 */
#define HZ_TOP 127     /* vision.py's _TOP_LEVEL: the level a flying unit or a scan sees up to */
#define HZ_FAR 0x1p62  /* a coordinate off any map: its cell would not fit a long */

/* One eye: a unit of a player that sees, or a scan (Vision.eyes' ox, oy, s2, top). */
typedef struct {
    double x, y, s2;
    signed char top;
} hz_eye;

/* numpy's astype(int64) of a coordinate (toward zero), clipped to 0..last; |v| < HZ_FAR. */
static inline long hz_cell(double v, long last) {
    long c = (long)v;
    return c < 0 ? 0 : (c > last ? last : c);
}

/* Vision.sees_from for one point's cell (cx, cy) at level `lv`: whether one of the `m` eyes has
 * ((cx + 0.5) - x) ** 2 + ((cy + 0.5) - y) ** 2 <= s2, in that order, and `lv` <= its top. */
static int hz_sees(const hz_eye *eyes, Py_ssize_t m, long cx, long cy, signed char lv) {
    double gx0 = (double)cx + 0.5, gy0 = (double)cy + 0.5;
    for (Py_ssize_t j = 0; j < m; j++) {
        double gx = gx0 - eyes[j].x, gy = gy0 - eyes[j].y;
        if (gx * gx + gy * gy <= eyes[j].s2 && lv <= eyes[j].top) return 1;
    }
    return 0;
}

/* Whether `owner` is one of the `k` players in `players`. */
static int hz_among(long long owner, const long long *players, Py_ssize_t k) {
    for (Py_ssize_t j = 0; j < k; j++)
        if (players[j] == owner) return 1;
    return 0;
}

/* The owner of eye `i`: unit i's for i < n, else that of scan i - n (the `m` columns of `scans`: x,
 * y and owner rows); -1 with a ValueError naming `fn` when it is not a whole number below
 * HZ_OWNERS. */
static long long hz_owner(kn_column owner, Py_ssize_t n, const double *scans, Py_ssize_t m, Py_ssize_t i,
                          const char *fn) {
    if (i < n) {
        long long o = KN_AT(long long, owner, i);
        if (o >= 0 && o < HZ_OWNERS) return o;
        PyErr_Format(PyExc_ValueError, "%s: unit %zd's owner %lld is not below %d", fn, i, o, HZ_OWNERS);
        return -1;
    }
    double o = scans[2 * m + i - n];
    if (o >= 0 && o < HZ_OWNERS && o == floor(o)) return (long long)o;
    PyErr_Format(PyExc_ValueError, "%s: scan %zd's owner is not a whole number below %d", fn, i - n, HZ_OWNERS);
    return -1;
}

/* The eyes of every owner, grouped: those of owner o are eyes[start[o]] .. eyes[start[o + 1] - 1]
 * (its units with sight > 0, then its scans: the `m` columns of `scans`, x, y and owner rows).
 * NULL with an exception set on bad input or no memory. */
static hz_eye *hz_eyes(const double *x, const double *y, kn_column sight, kn_column owner, kn_column ground,
                       const signed char *level, long w, long h, Py_ssize_t n, const double *scans, Py_ssize_t m,
                       double scan_s2, Py_ssize_t *start, const char *fn) {
    Py_ssize_t count[HZ_OWNERS + 1] = {0};
    for (Py_ssize_t i = 0; i < n + m; i++) {
        long long o = hz_owner(owner, n, scans, m, i, fn);
        if (o < 0) return NULL;
        if (i < n && !(KN_AT(double, sight, i) > 0)) continue;
        count[o + 1]++;
    }
    for (int o = 0; o < HZ_OWNERS; o++) count[o + 1] += count[o];
    memcpy(start, count, sizeof(count));
    hz_eye *eyes = (hz_eye *)malloc(sizeof(hz_eye) * (size_t)(count[HZ_OWNERS] > 0 ? count[HZ_OWNERS] : 1));
    if (eyes == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n + m; i++) {
        hz_eye e;
        if (i < n) {
            double s = KN_AT(double, sight, i);
            if (!(s > 0)) continue;
            e = (hz_eye){x[i], y[i], s * s, HZ_TOP};
            if (KN_AT(unsigned char, ground, i)) { /* a ground unit sees the levels up to its own */
                if (!(fabs(x[i]) < HZ_FAR && fabs(y[i]) < HZ_FAR)) {
                    PyErr_Format(PyExc_ValueError, "%s: the position of unit %zd is not finite", fn, i);
                    free(eyes);
                    return NULL;
                }
                e.top = level[hz_cell(y[i], h - 1) * w + hz_cell(x[i], w - 1)];
            }
        } else {
            e = (hz_eye){scans[i - n], scans[m + i - n], scan_s2, HZ_TOP};
        }
        eyes[count[hz_owner(owner, n, scans, m, i, fn)]++] = e; /* (checked above) */
    }
    return eyes;
}

PyDoc_STRVAR(unseen_of_doc,
"unseen_of(rc, xy, tgt, sight, owner, ground, level, w, h, revealed, scans, scan_s2) -> int\n\n"
"The compiled twin of sc2pool.engine.sim.systems.targeting._unseen_of: keeps at the start of the\n"
"int64 array ``rc`` (rows of units with a target, ``tgt``) the rows, in order, whose player, unless\n"
"it is one of ``revealed`` (int64), does not see the target's cell, and returns how many.  A\n"
"player's eyes are its units with sight > 0 (a ground one, not ``ground``'s, sees the levels up to\n"
"its own) and its scans (``scans``: float64, a row of their x, one of their y, one of their\n"
"owners; squared radius ``scan_s2``).  ``level`` is the h x w int8 grid of cliff levels (C order), ``xy`` the units' x\n"
"then their y; the other arrays hold one item per unit.  Owners are below 32.");

static PyObject *py_unseen_of(PyObject *self, PyObject *args) {
    PyObject *o[12];
    Py_ssize_t w, h;
    double scan_s2;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOnnOOd:unseen_of", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &w, &h,
                          &o[9], &o[10], &scan_s2))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "unseen_of: the grid's width and height must be positive");
        return NULL;
    }
    const char *fn = "unseen_of";
    kn_bufs b = {.n = 0};
    Py_ssize_t n = 0, kc = 0, n_rev = 0, m = 0, k = -1;
    Py_ssize_t start[HZ_OWNERS + 1];
    kn_column tgt, sight, owner, ground;
    long long *rc = kn_vec(&b, o[0], 'q', KN_ANY, KN_WRITABLE, &kc, fn, "rc");
    int ok = rc != NULL && kn_col(&b, o[2], 'q', KN_ANY, KN_STRIDED, &tgt, fn, "tgt");
    n = ok ? tgt.len : 0;
    const double *x = ok ? kn_vec(&b, o[1], 'd', 2 * n, KN_CONTIG, NULL, fn, "xy") : NULL, *y = x ? x + n : NULL;
    ok = x != NULL && kn_col(&b, o[3], 'd', n, KN_STRIDED, &sight, fn, "sight") &&
         kn_col(&b, o[4], 'q', n, KN_STRIDED, &owner, fn, "owner") &&
         kn_col(&b, o[5], '?', n, KN_STRIDED, &ground, fn, "ground") && kn_rows_ok(rc, kc, n, fn, "rc");
    const signed char *level = ok ? kn_vec(&b, o[6], 'b', w * h, KN_CONTIG, NULL, fn, "level") : NULL;
    const long long *revealed = level ? kn_vec(&b, o[9], 'q', KN_ANY, KN_CONTIG, &n_rev, fn, "revealed") : NULL;
    const double *scans = revealed ? kn_vec(&b, o[10], 'd', KN_ANY, KN_CONTIG, &m, fn, "scans") : NULL;
    if (scans != NULL && m % 3) {
        PyErr_Format(PyExc_ValueError, "%s: scans holds %zd items, not rows of x, y and owner", fn, m);
        scans = NULL;
    }
    m /= 3;
    hz_eye *eyes = scans ? hz_eyes(x, y, sight, owner, ground, level, (long)w, (long)h, n, scans, m, scan_s2, start,
                                   fn) : NULL;
    if (eyes != NULL) k = 0;
    for (Py_ssize_t j = 0; eyes != NULL && j < kc; j++) {
        long long i = rc[j], t = KN_AT(long long, tgt, i), own = KN_AT(long long, owner, i);
        if (t < 0 || t >= n) {
            PyErr_Format(PyExc_ValueError, "%s: tgt[%lld] = %lld is no row of %zd units", fn, i, t, n);
            k = -1;
            break;
        }
        if (!(fabs(x[t]) < HZ_FAR && fabs(y[t]) < HZ_FAR)) {
            PyErr_Format(PyExc_ValueError, "%s: the position of unit %lld is not finite", fn, t);
            k = -1;
            break;
        }
        if (hz_among(own, revealed, n_rev)) continue;
        long cx = hz_cell(x[t], (long)w - 1), cy = hz_cell(y[t], (long)h - 1);
        if (!hz_sees(eyes + start[own], start[own + 1] - start[own], cx, cy, level[cy * w + cx])) rc[k++] = i;
    }
    free(eyes);
    kn_release(&b);
    return k < 0 ? NULL : PyLong_FromSsize_t(k);
}
