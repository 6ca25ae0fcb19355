/* The engine's compiled kernels: C twins of pure-Python loops that run many times a game loop.
 *
 * Each function here computes exactly what its Python twin computes (named in its docstring), with
 * the same IEEE double operations in the same order, so a game plays the same with or without this
 * module; tests/engine/test_kernels*.py hold the two against each other.  The path finder's two
 * loops are in this file; each engine area's twins are in its own _kernels_<area>.c, included below
 * (one translation unit: the areas share the static helpers here).  The module is optional:
 * sc2pool/engine/kernels.py falls back to the Python twins when it was not built (no C compiler at
 * install time) or when SC2POOL_ENGINE_KERNELS=python.
 *
 * Built with -ffp-contract=off (setup.py): a fused multiply-add would round once where Python
 * rounds twice, and the games would drift apart from the pure-Python engine's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 512 /* pieces a segment test keeps pending; halving keeps it near log2(length) */
#define SMALL_TS 64   /* crossings held on the C stack before a segment test allocates */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Python's floor() of a float into a C long; the callers check finiteness first. */
static inline long floor_l(double v) { return (long)floor(v); }

static inline int cell_free(const unsigned char *grid, long w, long h, long x, long y) {
    return x >= 0 && y >= 0 && x < w && y < h && grid[y * w + x];
}

/* _supercover_free in sc2pool/engine/terrain/pathing.py: 1 free, 0 blocked, -1 out of memory. */
static int supercover_free(const unsigned char *grid, long w, long h,
                           double ax, double ay, double bx, double by) {
    long x = floor_l(ax), y = floor_l(ay);
    if (!cell_free(grid, w, h, x, y)) return 0;
    double dx = bx - ax, dy = by - ay;
    double small[SMALL_TS];
    double *ts = small;
    long n = 1, cap = SMALL_TS;
    long kx0 = 0, kx1 = -1, ky0 = 0, ky1 = -1;
    if (dx != 0.0) {
        double lo = ax < bx ? ax : bx, hi = ax < bx ? bx : ax;
        kx0 = (long)ceil(lo);
        kx1 = floor_l(hi);
    }
    if (dy != 0.0) {
        double lo = ay < by ? ay : by, hi = ay < by ? by : ay;
        ky0 = (long)ceil(lo);
        ky1 = floor_l(hi);
    }
    long need = 1 + (kx1 >= kx0 ? kx1 - kx0 + 1 : 0) + (ky1 >= ky0 ? ky1 - ky0 + 1 : 0);
    if (need > cap) {
        ts = (double *)malloc(sizeof(double) * (size_t)need);
        if (ts == NULL) return -1;
        cap = need;
    }
    ts[0] = 1.0;
    for (long k = kx0; k <= kx1; k++) ts[n++] = ((double)k - ax) / dx;
    for (long k = ky0; k <= ky1; k++) ts[n++] = ((double)k - ay) / dy;
    qsort(ts, (size_t)n, sizeof(double), cmp_double);
    int ok = 1;
    double prev = 0.0;
    for (long i = 0; i < n && ok; i++) {
        double t = ts[i];
        if (t == prev) continue;
        double m = (prev + t) * 0.5;
        if (!cell_free(grid, w, h, floor_l(ax + dx * m), floor_l(ay + dy * m))) { ok = 0; break; }
        double px = ax + dx * t, py = ay + dy * t;
        if (!cell_free(grid, w, h, floor_l(px), floor_l(py))) { ok = 0; break; }
        if (t < 1.0) {
            double kxd = nearbyint(px), kyd = nearbyint(py); /* round half to even, as round() */
            if (fabs(px - kxd) < 1e-9 && fabs(py - kyd) < 1e-9) {
                long kx = (long)kxd, ky = (long)kyd;
                if (kx < 1 || ky < 1 || kx >= w || ky >= h ||
                    !(grid[(ky - 1) * w + kx - 1] && grid[(ky - 1) * w + kx] &&
                      grid[ky * w + kx - 1] && grid[ky * w + kx])) { ok = 0; break; }
            }
        }
        prev = t;
    }
    if (ts != small) free(ts);
    return ok;
}

typedef struct { double ax, ay, bx, by; } piece;

/* _segment_free in sc2pool/engine/terrain/pathing.py: 1 free, 0 blocked, -1 error (set). */
static int segment_free(const unsigned char *grid, const int *sat, long w, long h,
                        double ax, double ay, double bx, double by) {
    long stride = w + 1;
    piece stack[STACK_MAX];
    long top_i = 0;
    stack[top_i++] = (piece){ax, ay, bx, by};
    while (top_i) {
        piece p = stack[--top_i];
        long x0, x1, y0, y1;
        if (p.ax < p.bx) { x0 = floor_l(p.ax); x1 = floor_l(p.bx); } else { x0 = floor_l(p.bx); x1 = floor_l(p.ax); }
        if (p.ay < p.by) { y0 = floor_l(p.ay); y1 = floor_l(p.by); } else { y0 = floor_l(p.by); y1 = floor_l(p.ay); }
        if (x0 < 0 || y0 < 0 || x1 >= w || y1 >= h) return 0;
        long top = y0 * stride, bottom = (y1 + 1) * stride;
        if ((long)sat[bottom + x1 + 1] - sat[top + x1 + 1] - sat[bottom + x0] + sat[top + x0] == 0) continue;
        if (x1 - x0 + y1 - y0 <= 3) {
            int r = supercover_free(grid, w, h, p.ax, p.ay, p.bx, p.by);
            if (r < 0) { PyErr_NoMemory(); return -1; }
            if (!r) return 0;
            continue;
        }
        double mx = (p.ax + p.bx) * 0.5, my = (p.ay + p.by) * 0.5;
        if (fabs(mx - nearbyint(mx)) < 1e-9 && fabs(my - nearbyint(my)) < 1e-9) {
            mx = p.ax + (p.bx - p.ax) * 0.515625;
            my = p.ay + (p.by - p.ay) * 0.515625;
        }
        if (top_i + 2 > STACK_MAX) {
            PyErr_SetString(PyExc_RuntimeError, "segment_free: too many pending pieces");
            return -1;
        }
        stack[top_i++] = (piece){mx, my, p.bx, p.by};
        stack[top_i++] = (piece){p.ax, p.ay, mx, my};
    }
    return 1;
}

/* ---- Borrowing arrays: the one set of argument getters every area's kernels use. ----
 *
 * A kernel borrows its arrays into a kn_bufs and releases them all on every way out
 * (kn_release).  Kinds: 'd' float64, 'q' int64, 'i' int32, 'b' int8, 'B' uint8, '?' bool.
 * Counts: n >= 0 exactly n items; n < 0 at least -n - 1 items (KN_ANY: any number). */
#define KN_MAX_BUFS 24 /* arrays one kernel call borrows at most */
#define KN_ANY (-1)
enum { KN_CONTIG = 0, KN_STRIDED = 1, KN_WRITABLE = 2 };

typedef struct {
    Py_buffer v[KN_MAX_BUFS];
    int n;
} kn_bufs;

static void kn_release(kn_bufs *b) {
    while (b->n) PyBuffer_Release(&b->v[--b->n]);
}

/* A one-dimensional array read with its own stride: the unit store's columns are rows of its
 * blocks, and those gathered by type are not contiguous. */
typedef struct {
    char *p;
    Py_ssize_t step; /* bytes from one item to the next */
    Py_ssize_t len;
} kn_column;
#define KN_AT(T, c, i) (*(T *)((c).p + (i) * (c).step))

static const char *kn_kind_name(char kind) {
    switch (kind) {
    case 'd': return "float64";
    case 'q': return "int64";
    case 'i': return "int32";
    case 'b': return "int8";
    case 'B': return "uint8";
    default: return "bool";
    }
}

/* Whether a buffer's struct format and item size are one item of `kind` in native byte order. */
static int kn_format_is(const Py_buffer *v, char kind) {
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (f[0] == '\0' || f[1] != '\0') return 0;
    switch (kind) {
    case 'd': return f[0] == 'd' && v->itemsize == 8;
    case 'q': return (f[0] == 'q' || f[0] == 'l') && v->itemsize == 8;
    case 'i': return (f[0] == 'i' || f[0] == 'l') && v->itemsize == 4;
    case 'b': return f[0] == 'b' && v->itemsize == 1;
    case 'B': return f[0] == 'B' && v->itemsize == 1;
    default: return f[0] == '?' && v->itemsize == 1;
    }
}

/* Borrow `obj` as an array of `kind`: C-contiguous of any shape, or with KN_STRIDED
 * one-dimensional at any stride; writable with KN_WRITABLE; `n` items as above (the number goes
 * to *len when `len` is not NULL).  NULL with a ValueError naming `fn` and `what` otherwise. */
static Py_buffer *kn_borrow(kn_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int how, Py_ssize_t *len,
                            const char *fn, const char *what) {
    int strided = how & KN_STRIDED, writable = how & KN_WRITABLE;
    Py_buffer *v = &b->v[b->n];
    int flags = PyBUF_FORMAT | (strided ? PyBUF_STRIDES : PyBUF_C_CONTIGUOUS) | (writable ? PyBUF_WRITABLE : 0);
    int ok = 0;
    if (b->n < KN_MAX_BUFS && PyObject_GetBuffer(obj, v, flags) == 0) {
        b->n++;
        ok = kn_format_is(v, kind) && (!strided || v->ndim == 1);
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: %s must be a %s%s %s array", fn, what,
                     strided ? "one-dimensional" : "C-contiguous", writable ? " writable" : "", kn_kind_name(kind));
        return NULL;
    }
    Py_ssize_t items = strided ? v->shape[0] : v->len / v->itemsize;
    if ((n >= 0 && items != n) || (n < 0 && items < -n - 1)) {
        PyErr_Format(PyExc_ValueError, "%s: %s holds %zd items where %s%zd are needed", fn, what, items,
                     n < 0 ? "at least " : "", n < 0 ? -n - 1 : n);
        return NULL;
    }
    if (len != NULL) *len = items;
    return v;
}

/* kn_borrow's C-contiguous data (KN_STRIDED is ignored), or NULL. */
static void *kn_vec(kn_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int how, Py_ssize_t *len, const char *fn,
                    const char *what) {
    Py_buffer *v = kn_borrow(b, obj, kind, n, how & ~KN_STRIDED, len, fn, what);
    return v ? v->buf : NULL;
}

/* kn_vec, or *out NULL when `obj` is None: 1 on success. */
static int kn_vec_opt(kn_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int how, const char *fn, const char *what,
                      void **out) {
    *out = NULL;
    if (obj == Py_None) return 1;
    *out = kn_vec(b, obj, kind, n, how, NULL, fn, what);
    return *out != NULL;
}

/* A borrowed buffer as a column: one-dimensional at its own stride, or C-contiguous read flat. */
static kn_column kn_column_of(const Py_buffer *v) {
    kn_column c = {(char *)v->buf, v->ndim == 1 && v->strides ? v->strides[0] : v->itemsize, v->len / v->itemsize};
    return c;
}

/* Borrow `obj` as a one-dimensional column of `kind` at its own stride into *c (C-contiguous
 * unless KN_STRIDED): 1, or 0 with a ValueError (and *c empty). */
static int kn_col(kn_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int how, kn_column *c, const char *fn,
                  const char *what) {
    *c = (kn_column){NULL, 0, 0};
    Py_buffer *v = kn_borrow(b, obj, kind, n, how, NULL, fn, what);
    if (v == NULL) return 0;
    if (!(how & KN_STRIDED) && v->ndim != 1) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be a one-dimensional %s array", fn, what, kn_kind_name(kind));
        return 0;
    }
    *c = kn_column_of(v);
    return 1;
}

/* An argument that is one number for every item or a float64 array of one per item: a Python
 * float or int into *number, with c->p NULL; else kn_borrow's array of `n` items into *c
 * (C-contiguous of any shape, read flat, unless KN_STRIDED).  1, or 0 with a ValueError. */
static int kn_number_or(kn_bufs *b, PyObject *obj, Py_ssize_t n, int how, double *number, kn_column *c,
                        const char *fn, const char *what) {
    c->p = NULL;
    if (PyFloat_Check(obj) || PyLong_Check(obj)) {
        *number = PyFloat_AsDouble(obj);
        if (*number == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: %s is a number beyond float64", fn, what);
            return 0;
        }
        return 1;
    }
    Py_buffer *v = kn_borrow(b, obj, 'd', n, how, NULL, fn, what);
    if (v == NULL) return 0;
    *c = kn_column_of(v);
    return 1;
}

/* 1 when every one of the `k` rows is a unit row below `n`; 0 with a ValueError otherwise. */
static int kn_rows_ok(const long long *rows, Py_ssize_t k, Py_ssize_t n, const char *fn, const char *what) {
    for (Py_ssize_t j = 0; j < k; j++) {
        if (rows[j] < 0 || rows[j] >= n) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] = %lld is not a unit row (there are %zd)", fn, what, j,
                         rows[j], n);
            return 0;
        }
    }
    return 1;
}

/* A C-contiguous array of `n` items as a kn_column (for kn_in_range). */
#define KN_FLAT(ptr, n) ((kn_column){(char *)(ptr), (Py_ssize_t)sizeof *(ptr), (n)})

/* 1 when every int64 item of `c` indexes something of `hi` items; 0 with a ValueError otherwise. */
static int kn_in_range(kn_column c, Py_ssize_t hi, const char *fn, const char *what) {
    for (Py_ssize_t i = 0; i < c.len; i++) {
        long long v = KN_AT(long long, c, i);
        if (v < 0 || v >= hi) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] = %lld lies outside [0, %zd)", fn, what, i, v, hi);
            return 0;
        }
    }
    return 1;
}

static int finite4(double a, double b, double c, double d) {
    if (isfinite(a) && isfinite(b) && isfinite(c) && isfinite(d)) return 1;
    PyErr_SetString(PyExc_ValueError, "segment end points must be finite numbers");
    return 0;
}

#include "_kernels_locomotion.c"
#include "_kernels_vision.c"
#include "_kernels_collision.c"

PyDoc_STRVAR(segment_free_doc,
"segment_free(free, sat, w, h, ax, ay, bx, by) -> bool\n\n"
"True when every cell the segment (ax, ay)-(bx, by) touches is free: the compiled twin of\n"
"sc2pool.engine.terrain.pathing._segment_free.  ``free`` is the h x w grid of free cells\n"
"(bool, C order), ``sat`` the summed-area table of its blocked cells\n"
"(int32, (h + 1) x (w + 1), C order).");

static PyObject *py_segment_free(PyObject *self, PyObject *args) {
    PyObject *free_obj, *sat_obj;
    Py_ssize_t w, h;
    double ax, ay, bx, by;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnndddd:segment_free", &free_obj, &sat_obj, &w, &h, &ax, &ay, &bx, &by))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "segment_free: the grid's width and height must be positive");
        return NULL;
    }
    if (!finite4(ax, ay, bx, by)) return NULL;
    const char *fn = "segment_free";
    kn_bufs b;
    b.n = 0;
    const unsigned char *grid = kn_vec(&b, free_obj, '?', w * h, KN_CONTIG, NULL, fn, "free");
    const int *sat = grid ? kn_vec(&b, sat_obj, 'i', (w + 1) * (h + 1), KN_CONTIG, NULL, fn, "sat") : NULL;
    int r = sat ? segment_free(grid, sat, (long)w, (long)h, ax, ay, bx, by) : -1;
    kn_release(&b);
    if (r < 0) return NULL;
    return PyBool_FromLong(r);
}

/* Pathing._nearest_in in sc2pool/engine/sim/systems/pathing.py over the square of cells within
 * `radius` of (x, y)'s own, row by row: 1 with (*qx, *qy) set when the nearest point found is
 * within `radius` + 1 - 1 = `reach`, else 0. */
static int nearest_in(const unsigned char *grid, long w, long h, double inset, double x, double y,
                      long radius, double reach, double *qx_out, double *qy_out) {
    long ix = (long)x, iy = (long)y; /* int(): toward zero */
    double best = INFINITY, bx = 0.0, by = 0.0;
    double far = 1 - inset;
    for (long dy = -radius; dy <= radius; dy++) {
        for (long dx = -radius; dx <= radius; dx++) {
            long cx = ix + dx, cy = iy + dy;
            if (0 <= cx && cx < w && 0 <= cy && cy < h && grid[cy * w + cx]) {
                double lo = (double)cx + inset, hi = (double)cx + far;
                double qx = lo > x ? lo : x;
                qx = hi < qx ? hi : qx;
                lo = (double)cy + inset;
                hi = (double)cy + far;
                double qy = lo > y ? lo : y;
                qy = hi < qy ? hi : qy;
                double d2 = (qx - x) * (qx - x) + (qy - y) * (qy - y);
                if (d2 < best) { best = d2; bx = qx; by = qy; }
            }
        }
    }
    if (best <= reach * reach) { *qx_out = bx; *qy_out = by; return 1; }
    return 0;
}

PyDoc_STRVAR(nearest_in_window_doc,
"nearest_in_window(xs, ys, grid, w, h, inset, window) -> list[int]\n\n"
"Moves each point (xs[i], ys[i]) to the nearest point of a free cell found among the 8 cells\n"
"round its own, else within ``window`` cells, and returns the indices of the points with no\n"
"free cell that near (left as they were): the compiled twin of the first loop of\n"
"sc2pool.engine.sim.systems.pathing.Pathing._nearest_free.  ``xs`` and ``ys`` are writable\n"
"float64 arrays of one length, ``grid`` the h x w free cells (bool, C order).");

static PyObject *py_nearest_in_window(PyObject *self, PyObject *args) {
    PyObject *xs_obj, *ys_obj, *grid_obj;
    Py_ssize_t w, h, window;
    double inset;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOnndn:nearest_in_window", &xs_obj, &ys_obj, &grid_obj, &w, &h, &inset, &window))
        return NULL;
    if (w <= 0 || h <= 0 || window < 1) {
        PyErr_SetString(PyExc_ValueError, "nearest_in_window: the grid's width and height and the window must be positive");
        return NULL;
    }
    const char *fn = "nearest_in_window";
    kn_bufs b;
    b.n = 0;
    PyObject *todo = NULL;
    Py_ssize_t n;
    double *xs = kn_vec(&b, xs_obj, 'd', KN_ANY, KN_WRITABLE, &n, fn, "xs");
    double *ys = xs ? kn_vec(&b, ys_obj, 'd', n, KN_WRITABLE, NULL, fn, "ys") : NULL;
    const unsigned char *grid = ys ? kn_vec(&b, grid_obj, '?', w * h, KN_CONTIG, NULL, fn, "grid") : NULL;
    if (grid != NULL) todo = PyList_New(0);
    for (Py_ssize_t i = 0; todo != NULL && i < n; i++) {
        double x = xs[i], y = ys[i], qx, qy;
        if (!isfinite(x) || !isfinite(y)) {
            PyErr_Format(PyExc_ValueError, "nearest_in_window: point %zd is not finite", i);
            Py_CLEAR(todo);
            break;
        }
        if (nearest_in(grid, (long)w, (long)h, inset, x, y, 1, 1.0, &qx, &qy) ||
            nearest_in(grid, (long)w, (long)h, inset, x, y, (long)window, (double)window, &qx, &qy)) {
            xs[i] = qx;
            ys[i] = qy;
        } else {
            PyObject *k = PyLong_FromSsize_t(i);
            if (k == NULL || PyList_Append(todo, k) < 0) Py_CLEAR(todo);
            Py_XDECREF(k);
        }
    }
    kn_release(&b);
    return todo;
}

#include "_kernels_paths.c"
#include "_kernels_targeting.c"
#include "_kernels_encode.c"
#include "_kernels_combat.c"
#include "_kernels_pf.c"
#include "_kernels_hz.c"
#include "_kernels_pf2.c"
#include "_kernels_dij.c"
#include "_kernels_tgt2.c"
#include "_kernels_loco2.c"

static PyMethodDef methods[] = {
    {"segment_free", py_segment_free, METH_VARARGS, segment_free_doc},
    {"nearest_in_window", py_nearest_in_window, METH_VARARGS, nearest_in_window_doc},
    {"blocked_ahead", py_blocked_ahead, METH_VARARGS, blocked_ahead_doc},
    {"move_to_points", py_move_to_points, METH_VARARGS, move_to_points_doc},
    {"walkers", py_walkers, METH_VARARGS, walkers_doc},
    {"headings", py_headings, METH_VARARGS, headings_doc},
    {"sidestep", py_sidestep, METH_VARARGS, sidestep_doc},
    {"chase_step", py_chase_step, METH_VARARGS, chase_step_doc},
    {"look_ahead", py_look_ahead, METH_VARARGS, look_ahead_doc},
    {"nearest_cell", py_nearest_cell, METH_VARARGS, nearest_cell_doc},
    {"pending_movers", py_pending_movers, METH_VARARGS, pending_movers_doc},
    {"skip_candidates", py_skip_candidates, METH_VARARGS, skip_candidates_doc},
    {"resume_waypoint", py_resume_waypoint, METH_VARARGS, resume_waypoint_doc},
    {"below_roots", py_below_roots, METH_VARARGS, below_roots_doc},
    {"seen_cells", py_seen_cells, METH_VARARGS, seen_cells_doc},
    {"sees_points", py_sees_points, METH_VARARGS, sees_points_doc},
    {"sweep_pairs", py_sweep_pairs, METH_VARARGS, sweep_pairs_doc},
    {"moved_apart", py_moved_apart, METH_VARARGS, moved_apart_doc},
    {"active_pairs", py_active_pairs, METH_VARARGS, active_pairs_doc},
    {"join_overlapping", py_join_overlapping, METH_VARARGS, join_overlapping_doc},
    {"touching_pairs", py_touching_pairs, METH_VARARGS, touching_pairs_doc},
    {"give_way", py_give_way, METH_VARARGS, give_way_doc},
    {"pair_shares", py_pair_shares, METH_VARARGS, pair_shares_doc},
    {"sidestep_movers", py_sidestep_movers, METH_VARARGS, sidestep_movers_doc},
    {"first_push", py_first_push, METH_VARARGS, first_push_doc},
    {"relax_pairs", py_relax_pairs, METH_VARARGS, relax_pairs_doc},
    {"nearest_hostile", py_nearest_hostile, METH_VARARGS, nearest_hostile_doc},
    {"unseen_candidates", py_unseen_candidates, METH_VARARGS, unseen_candidates_doc},
    {"place_walkers", py_place_walkers, METH_VARARGS, place_walkers_doc},
    {"encode_units", py_encode_units, METH_VARARGS, encode_units_doc},
    {"heal_hurt", py_heal_hurt, METH_VARARGS, heal_hurt_doc},
    {"heal_apply", py_heal_apply, METH_VARARGS, heal_apply_doc},
    {"fire_ready", py_fire_ready, METH_VARARGS, fire_ready_doc},
    {"burn_low", py_burn_low, METH_VARARGS, burn_low_doc},
    {"grow_life", py_grow_life, METH_VARARGS, grow_life_doc},
    {"chase_prep", py_chase_prep, METH_VARARGS, chase_prep_doc},
    {"chase_pick", py_chase_pick, METH_VARARGS, chase_pick_doc},
    {"chase_heads", py_chase_heads, METH_VARARGS, chase_heads_doc},
    {"violators", py_violators, METH_VARARGS, violators_doc},
    {"sat_update", py_sat_update, METH_VARARGS, sat_update_doc},
    {"unseen_of", py_unseen_of, METH_VARARGS, unseen_of_doc},
    {"repair_roots", py_repair_roots, METH_VARARGS, repair_roots_doc},
    {"sub_graph", py_sub_graph, METH_VARARGS, sub_graph_doc},
    {"repair_write", py_repair_write, METH_VARARGS, repair_write_doc},
    {"dijkstra_csr", py_dijkstra_csr, METH_VARARGS, dijkstra_csr_doc},
    {"target_rows", py_target_rows, METH_VARARGS, target_rows_doc},
    {"resolve_pass", py_resolve_pass, METH_VARARGS, resolve_pass_doc},
    {"econ_same", py_econ_same, METH_VARARGS, econ_same_doc},
    {"crowd_steer", py_crowd_steer, METH_VARARGS, crowd_steer_doc},
    {"crowd_stops", py_crowd_stops, METH_VARARGS, crowd_stops_doc},
    {"set_facing", py_set_facing, METH_VARARGS, set_facing_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "The engine's compiled kernels (see sc2pool/engine/kernels.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
