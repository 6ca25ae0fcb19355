/* Path following's compiled kernels (included by _kernels.c, after its shared helpers).
 *
 * look_ahead: the chasers' look along their straight line to the target (Pathing.chase in
 * sc2pool/engine/sim/systems/pathing.py); pending_movers and skip_candidates: the point movers
 * that plan a path and that may skip a waypoint (Pathing.pending and Pathing.skip_ahead there);
 * resume_waypoint: where a point mover joins a path planned before (_resume_at there);
 * below_roots: the nodes a distance field repairs (_below_roots in sc2pool/engine/terrain/pathing.py);
 * nearest_cell: the window search of PathFinder._nearest_free in
 * sc2pool/engine/terrain/pathing.py.  Each twin does the same double
 * operations in the same order as its Python twin (tests/engine/test_kernels_paths.py).
 */

#define PATHS_SAMPLE 0.25    /* sim/systems/pathing.py's SAMPLE */
#define PATHS_LOOKAHEAD 4.0  /* sim/systems/pathing.py's LOOKAHEAD */
#define PATHS_SKIP 1.0       /* sim/systems/pathing.py's SKIP */

/* numpy's array kinds as the buffer protocol names them: 'd' float64, 'q' int64, 'i' int32, '?' bool. */
static int paths_format_is(const char *fmt, char kind) {
    if (*fmt == '<' || *fmt == '=' || *fmt == '@') fmt++;
    if (fmt[0] == '\0' || fmt[1] != '\0') return 0;
    if (kind == 'q') return fmt[0] == 'q' || (fmt[0] == 'l' && sizeof(long) == 8);
    return fmt[0] == kind;
}

/* Borrow an array of `kind` ('d', 'q', 'i' or '?'): C-contiguous (read flat, whatever its shape) or, when
 * `strided`, one-dimensional with any stride (a row of the unit store's int block, which is not
 * always C-ordered); 0 with a ValueError naming `what` otherwise. */
static int paths_get_vec(PyObject *obj, Py_buffer *view, char kind, int strided, int writable, const char *what) {
    Py_ssize_t size = kind == '?' ? 1 : kind == 'i' ? 4 : 8;
    int flags = (strided ? PyBUF_STRIDES : PyBUF_C_CONTIGUOUS) | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    const char *type = kind == 'd' ? "float64" : kind == 'q' ? "int64" : kind == 'i' ? "int32" : "bool";
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a %s%s %s array", what, strided ? "one-dimensional" : "C-contiguous",
                     writable ? " writable" : "", type);
        return 0;
    }
    if (view->itemsize != size || !paths_format_is(view->format, kind) || (strided && view->ndim != 1)) {
        PyErr_Format(PyExc_ValueError, "%s must be a %s%s array", what, strided ? "one-dimensional " : "", type);
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

/* Item i of a one-dimensional buffer of long long, at any stride. */
static inline long long paths_q_at(const Py_buffer *v, Py_ssize_t i) {
    return *(const long long *)((const char *)v->buf + i * v->strides[0]);
}

/* One chaser's look ahead (the rows of Pathing._look_ahead): 1 when a sample point of its line
 * is off the map or on a cell that `grid` blocks and that `ttag` does not stand on. */
static int paths_blocked(double ux, double uy, double dx, double dy, double lt, const unsigned char *grid,
                         const long long *cell_tag, long long ttag, long w, long h) {
    for (long k = 0;; k++) {
        double s = (double)k * PATHS_SAMPLE;
        int last = s >= lt;
        if (last) s = lt;
        double px = dx * s, py = dy * s;
        px += ux;
        py += uy;
        /* as numpy's cast to int64 (toward zero) and the unsigned test against (w, h) */
        long idx = 0;
        int inside = px > -1.0 && px < (double)w && py > -1.0 && py < (double)h;
        if (inside) idx = (long)py * w + (long)px;
        if (!(inside && grid[idx]) && cell_tag[idx] != ttag) return 1;
        if (last) return 0;
    }
}

PyDoc_STRVAR(look_ahead_doc,
"look_ahead(m, tm, md, dist, stop_at, ti, flying, xy, tags, jumpers, free, jump_free, cell_tag, w, h,\n"
"           out) -> bool\n\n"
"Marks in ``out`` the chasers ``m`` whose straight line to their targets ``tm`` is blocked within\n"
"the look-ahead: the compiled twin of sc2pool.engine.sim.systems.pathing._look_ahead (which see\n"
"for the arguments).  False, with ``out`` unfinished, when a Reaper looks and ``jump_free`` is\n"
"None.");

enum { LA_M, LA_TM, LA_MD, LA_DIST, LA_STOP, LA_TI, LA_FLYING, LA_XY, LA_TAGS, LA_JUMPERS, LA_FREE, LA_JUMP_FREE,
       LA_CELL_TAG, LA_OUT, LA_ARRAYS };

static PyObject *py_look_ahead(PyObject *self, PyObject *args) {
    PyObject *o[LA_ARRAYS];
    Py_ssize_t w, h;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOnnO:look_ahead", &o[LA_M], &o[LA_TM], &o[LA_MD], &o[LA_DIST],
                          &o[LA_STOP], &o[LA_TI], &o[LA_FLYING], &o[LA_XY], &o[LA_TAGS], &o[LA_JUMPERS], &o[LA_FREE],
                          &o[LA_JUMP_FREE], &o[LA_CELL_TAG], &w, &h, &o[LA_OUT]))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "look_ahead: the grid's width and height must be positive");
        return NULL;
    }
    static const char kinds[LA_ARRAYS] = {'q', 'q', 'd', 'd', 'd', 'q', '?', 'd', 'q', '?', '?', '?', 'q', '?'};
    static const char *names[LA_ARRAYS] = {
        "look_ahead: m", "look_ahead: tm", "look_ahead: md", "look_ahead: dist", "look_ahead: stop_at",
        "look_ahead: ti", "look_ahead: flying", "look_ahead: xy", "look_ahead: tags", "look_ahead: jumpers",
        "look_ahead: free", "look_ahead: jump_free", "look_ahead: cell_tag", "look_ahead: out"};
    Py_buffer v[LA_ARRAYS];
    int has_jump = o[LA_JUMP_FREE] != Py_None, got = 0;
    PyObject *result = NULL;
    for (; got < LA_ARRAYS; got++) {
        if (got == LA_JUMP_FREE && !has_jump) continue;
        if (!paths_get_vec(o[got], &v[got], kinds[got], got == LA_TI || got == LA_TAGS, got == LA_OUT, names[got]))
            goto done;
    }
    {
        /* every array's length: per chaser (k), per unit row (n), per cell, twice for x and y */
        Py_ssize_t k = v[LA_M].len / 8, n = v[LA_TI].len / 8, cells = (Py_ssize_t)w * h;
        const Py_ssize_t want[LA_ARRAYS] = {k, k, 2 * k, k, k, n, -1, 2 * n, n, n, cells, cells, cells, k};
        for (int a = 0; a < LA_ARRAYS; a++) {
            if (want[a] < 0 || (a == LA_JUMP_FREE && !has_jump)) continue;
            if (v[a].len / v[a].itemsize != want[a]) {
                PyErr_Format(PyExc_ValueError, "%s holds %zd items where %zd are needed (m has %zd, ti %zd)",
                             names[a], v[a].len / v[a].itemsize, want[a], k, n);
                goto done;
            }
        }
        const long long *m = v[LA_M].buf, *tm = v[LA_TM].buf, *cell_tag = v[LA_CELL_TAG].buf;
        const double *md = v[LA_MD].buf, *dist = v[LA_DIST].buf, *stop_at = v[LA_STOP].buf, *xy = v[LA_XY].buf;
        const unsigned char *flying = v[LA_FLYING].buf, *jumpers = v[LA_JUMPERS].buf, *free_ = v[LA_FREE].buf;
        const unsigned char *jump_free = has_jump ? v[LA_JUMP_FREE].buf : NULL;
        unsigned char *out = v[LA_OUT].buf;
        Py_ssize_t types = v[LA_FLYING].len;
        for (Py_ssize_t i = 0; i < k; i++) {
            if (m[i] < 0 || m[i] >= n || tm[i] < 0 || tm[i] >= n) {
                PyErr_Format(PyExc_ValueError, "look_ahead: chaser %zd's row or its target's is not a unit row", i);
                goto done;
            }
            long long t = paths_q_at(&v[LA_TI], m[i]);
            if (t < 0 || t >= types) {
                PyErr_Format(PyExc_ValueError, "look_ahead: chaser %zd's type row is not in flying", i);
                goto done;
            }
        }
        int complete = 1;
        for (Py_ssize_t i = 0; i < k; i++) {
            long long r = m[i];
            /* min(max(dist - stop_at, 0), LOOKAHEAD) - 0.05 (a NaN stays NaN, as numpy's) */
            double look = dist[i] - stop_at[i];
            if (look < 0.0) look = 0.0;
            if (look > PATHS_LOOKAHEAD) look = PATHS_LOOKAHEAD;
            look -= 0.05;
            if (!(look > 0.0) || flying[paths_q_at(&v[LA_TI], r)]) continue;
            const unsigned char *grid = free_;
            if (jumpers[r]) {
                if (jump_free == NULL) {
                    complete = 0;
                    break;
                }
                grid = jump_free;
            }
            double d = dist[i];
            out[i] = (unsigned char)paths_blocked(xy[r], xy[n + r], md[i] / d, md[k + i] / d, look, grid, cell_tag,
                                                  paths_q_at(&v[LA_TAGS], tm[i]), (long)w, (long)h);
        }
        result = PyBool_FromLong(complete);
    }
done:
    for (int a = 0; a < got; a++)
        if (a != LA_JUMP_FREE || has_jump) PyBuffer_Release(&v[a]);
    return result;
}

PyDoc_STRVAR(nearest_cell_doc,
"nearest_cell(free, w, h, x, y, window) -> tuple[int, int] | None\n\n"
"The free cell whose centre is nearest to (x, y) among the cells within ``window`` of the point's\n"
"own (clamped into the grid), when nothing outside that window can be nearer; else None: the\n"
"compiled twin of sc2pool.engine.terrain.pathing._nearest_cell.  ``free`` is the h x w grid of\n"
"free cells (one byte each, C order).");

static PyObject *py_nearest_cell(PyObject *self, PyObject *args) {
    PyObject *free_obj;
    Py_ssize_t w, h, window;
    double x, y;
    (void)self;
    if (!PyArg_ParseTuple(args, "Onnddn:nearest_cell", &free_obj, &w, &h, &x, &y, &window)) return NULL;
    if (w <= 0 || h <= 0 || window < 1) {
        PyErr_SetString(PyExc_ValueError, "nearest_cell: the grid's width and height and the window must be positive");
        return NULL;
    }
    if (!isfinite(x) || !isfinite(y)) {
        PyErr_SetString(PyExc_ValueError, "nearest_cell: the point must be finite");
        return NULL;
    }
    Py_buffer fv;
    if (!get_grid(free_obj, &fv, w * h, "nearest_cell: free")) return NULL;
    const unsigned char *grid = (const unsigned char *)fv.buf;
    /* PathFinder._cell: the point's cell, clamped into the grid (in doubles: x may be huge) */
    double fx = floor(x), fy = floor(y);
    long cx = fx < 0.0 ? 0 : fx > (double)(w - 1) ? (long)w - 1 : (long)fx;
    long cy = fy < 0.0 ? 0 : fy > (double)(h - 1) ? (long)h - 1 : (long)fy;
    long r = (long)window;
    long y0 = cy - r > 0 ? cy - r : 0, y1 = cy + r + 1 < h ? cy + r + 1 : (long)h;
    long x0 = cx - r > 0 ? cx - r : 0, x1 = cx + r + 1 < w ? cx + r + 1 : (long)w;
    double best = INFINITY;
    long bx = 0, by = 0;
    for (long yy = y0; yy < y1; yy++) {
        const unsigned char *row = grid + yy * w;
        double ey = (double)yy + 0.5 - y;
        ey *= ey;
        for (long xx = x0; xx < x1; xx++) {
            if (row[xx]) {
                double ex = (double)xx + 0.5 - x;
                double d2 = ex * ex + ey;
                if (d2 < best) {
                    best = d2;
                    bx = xx;
                    by = yy;
                }
            }
        }
    }
    PyBuffer_Release(&fv);
    if (best <= ((double)r - 0.5) * ((double)r - 0.5)) return Py_BuildValue("(ll)", bx, by);
    Py_RETURN_NONE;
}

/* Item i of a one-dimensional buffer of double or of bool, at any stride. */
static inline double paths_d_at(const Py_buffer *v, Py_ssize_t i) {
    return *(const double *)((const char *)v->buf + i * v->strides[0]);
}

static inline unsigned char paths_b_at(const Py_buffer *v, Py_ssize_t i) {
    return *((const unsigned char *)v->buf + i * v->strides[0]);
}

PyDoc_STRVAR(pending_movers_doc,
"pending_movers(kind, point_kinds, wp, speed, eng, out) -> None\n\n"
"Sets ``out`` (bool per unit row) to POINT_KINDS[kind] & (wp < 0) & (speed > 0) & (eng == 0): the\n"
"compiled twin of sc2pool.engine.sim.systems.pathing._pending_movers.");

static PyObject *py_pending_movers(PyObject *self, PyObject *args) {
    enum { PM_KIND, PM_POINT_KINDS, PM_WP, PM_SPEED, PM_ENG, PM_OUT, PM_ARRAYS };
    static const char kinds[PM_ARRAYS] = {'q', '?', 'q', 'd', 'q', '?'};
    static const char *names[PM_ARRAYS] = {"pending_movers: kind", "pending_movers: point_kinds", "pending_movers: wp",
                                           "pending_movers: speed", "pending_movers: eng", "pending_movers: out"};
    PyObject *o[PM_ARRAYS];
    Py_buffer v[PM_ARRAYS];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:pending_movers", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5])) return NULL;
    int got = 0;
    PyObject *result = NULL;
    for (; got < PM_ARRAYS; got++)
        if (!paths_get_vec(o[got], &v[got], kinds[got], 1, got == PM_OUT, names[got])) goto done;
    {
        Py_ssize_t n = v[PM_KIND].shape[0], nk = v[PM_POINT_KINDS].shape[0];
        for (int a = PM_WP; a < PM_ARRAYS; a++) {
            if (v[a].shape[0] != n) {
                PyErr_Format(PyExc_ValueError, "%s holds %zd items where kind has %zd", names[a], v[a].shape[0], n);
                goto done;
            }
        }
        unsigned char *out = v[PM_OUT].buf;
        Py_ssize_t out_stride = v[PM_OUT].strides[0];
        for (Py_ssize_t i = 0; i < n; i++) {
            long long kd = paths_q_at(&v[PM_KIND], i);
            if (kd < 0 || kd >= nk) {
                PyErr_Format(PyExc_ValueError, "pending_movers: row %zd's kind %lld is not in point_kinds", i, kd);
                goto done;
            }
            out[i * out_stride] = paths_b_at(&v[PM_POINT_KINDS], kd) && paths_q_at(&v[PM_WP], i) < 0 &&
                                  paths_d_at(&v[PM_SPEED], i) > 0.0 && paths_q_at(&v[PM_ENG], i) == 0;
        }
        result = Py_NewRef(Py_None);
    }
done:
    for (int a = 0; a < got; a++) PyBuffer_Release(&v[a]);
    return result;
}

PyDoc_STRVAR(skip_candidates_doc,
"skip_candidates(rows, hxy, wp, we) -> list[int]\n\n"
"The indices j of the point movers ``rows`` within SKIP of their waypoint (``hxy``: from each to\n"
"it, x and y as two rows) that walk a path (``wp`` >= 0) and whose waypoint is not their walk's\n"
"end (``we``: the store's wx, wy, ex, ey rows, 4 x units, C order): the compiled twin of\n"
"sc2pool.engine.sim.systems.pathing._skip_candidates.");

static PyObject *py_skip_candidates(PyObject *self, PyObject *args) {
    PyObject *rows_obj, *hxy_obj, *wp_obj, *we_obj;
    Py_buffer rv, hv, wv, ev;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO:skip_candidates", &rows_obj, &hxy_obj, &wp_obj, &we_obj)) return NULL;
    PyObject *result = NULL;
    if (!paths_get_vec(rows_obj, &rv, 'q', 1, 0, "skip_candidates: rows")) return NULL;
    if (!paths_get_vec(hxy_obj, &hv, 'd', 0, 0, "skip_candidates: hxy")) goto done_r;
    if (!paths_get_vec(wp_obj, &wv, 'q', 1, 0, "skip_candidates: wp")) goto done_h;
    if (!paths_get_vec(we_obj, &ev, 'd', 0, 0, "skip_candidates: we")) goto done_w;
    {
        Py_ssize_t k = rv.shape[0], n = wv.shape[0];
        if (hv.len / 8 != 2 * k) {
            PyErr_Format(PyExc_ValueError, "skip_candidates: hxy must hold 2 x %zd items (x and y rows)", k);
            goto done_e;
        }
        if (ev.len / 8 != 4 * n) {
            PyErr_Format(PyExc_ValueError, "skip_candidates: we must hold 4 x %zd items (wx, wy, ex, ey rows)", n);
            goto done_e;
        }
        const double *hxy = hv.buf, *we = ev.buf;
        result = PyList_New(0);
        for (Py_ssize_t j = 0; result != NULL && j < k; j++) {
            long long r = paths_q_at(&rv, j);
            if (r < 0 || r >= n) {
                PyErr_Format(PyExc_ValueError, "skip_candidates: rows[%zd] is not a unit row", j);
                Py_CLEAR(result);
                break;
            }
            double hx = hxy[j] * hxy[j], hy = hxy[k + j] * hxy[k + j];
            if (!(hx + hy < PATHS_SKIP * PATHS_SKIP) || paths_q_at(&wv, r) < 0) continue;
            if (!(we[r] != we[2 * n + r] || we[n + r] != we[3 * n + r])) continue;
            PyObject *jo = PyLong_FromSsize_t(j);
            if (jo == NULL || PyList_Append(result, jo) < 0) Py_CLEAR(result);
            Py_XDECREF(jo);
        }
    }
done_e:
    PyBuffer_Release(&ev);
done_w:
    PyBuffer_Release(&wv);
done_h:
    PyBuffer_Release(&hv);
done_r:
    PyBuffer_Release(&rv);
    return result;
}

/* Squared distances at least this much apart (relative) order their hypot()s the same way: the
 * squares round by a few units in 1e-16 and numpy's hypot by about one, so only the squares of
 * waypoints this close to equally near leave the choice to numpy's hypot. */
#define PATHS_TIE 1e-9
/* Below this a square may have lost its relative precision to underflow. */
#define PATHS_TINY 1e-280

/* The index of the waypoint (px[i], py[i]) nearest to (x, y) as the argmin of numpy's hypot
 * would find it (the first of equally near ones), told without a hypot: by the squared
 * distances, when the nearest one's square is below every other by more than PATHS_TIE; -1
 * otherwise (a near tie, or a square that is not a plain finite number), which numpy decides. */
static Py_ssize_t paths_nearest_waypoint(const double *pts, Py_ssize_t k, double x, double y) {
    double best = INFINITY;
    Py_ssize_t bi = -1;
    for (Py_ssize_t i = 0; i < k; i++) {
        double dx = pts[2 * i] - x, dy = pts[2 * i + 1] - y;
        double s = dx * dx + dy * dy;
        if (isnan(s)) return -1;
        if (s < best) {
            best = s;
            bi = i;
        }
    }
    if (bi < 0 || best < PATHS_TINY) return -1;
    double tie = best * (1.0 + PATHS_TIE);
    for (Py_ssize_t i = 0; i < k; i++) {
        if (i == bi) continue;
        double dx = pts[2 * i] - x, dy = pts[2 * i + 1] - y;
        if (dx * dx + dy * dy <= tie) return -1;
    }
    return bi;
}

PyDoc_STRVAR(resume_waypoint_doc,
"resume_waypoint(pts, x, y, free, sat, w, h, nearest) -> int\n\n"
"The index of the waypoint of ``pts`` (float64 (k, 2), C order) nearest to (x, y), or of the one\n"
"after it, that (x, y) sees along a free line on the grid ``free`` (the later one first; ``sat``:\n"
"its blocked cells' summed-area table, as segment_free takes them); -1 when it sees neither: the\n"
"compiled twin of sc2pool.engine.sim.systems.pathing._resume_at.  ``nearest``: the nearest\n"
"waypoint's index, or -1 to find it here; -2 when it is too near a tie to be told without numpy's\n"
"hypot (then ask again with the argmin of that hypot as ``nearest``).");

static PyObject *py_resume_waypoint(PyObject *self, PyObject *args) {
    PyObject *pts_obj, *free_obj, *sat_obj;
    Py_ssize_t w, h, nearest;
    double x, y;
    (void)self;
    if (!PyArg_ParseTuple(args, "OddOOnnn:resume_waypoint", &pts_obj, &x, &y, &free_obj, &sat_obj, &w, &h, &nearest))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "resume_waypoint: the grid's width and height must be positive");
        return NULL;
    }
    Py_buffer pv, fv, sv;
    if (!paths_get_vec(pts_obj, &pv, 'd', 0, 0, "resume_waypoint: pts")) return NULL;
    PyObject *result = NULL;
    Py_ssize_t k = pv.len / 8;
    if (pv.ndim != 2 || pv.shape[1] != 2 || k == 0) {
        PyErr_SetString(PyExc_ValueError, "resume_waypoint: pts must hold (k, 2) points, k > 0");
        goto done_p;
    }
    k /= 2;
    if (nearest < -1 || nearest >= k) {
        PyErr_Format(PyExc_ValueError, "resume_waypoint: nearest %zd is not one of the %zd waypoints", nearest, k);
        goto done_p;
    }
    if (!get_grid(free_obj, &fv, w * h, "resume_waypoint: free")) goto done_p;
    if (!get_grid(sat_obj, &sv, (w + 1) * (h + 1) * (Py_ssize_t)sizeof(int), "resume_waypoint: sat")) goto done_f;
    {
        const double *pts = pv.buf;
        Py_ssize_t i = nearest >= 0 ? nearest : paths_nearest_waypoint(pts, k, x, y);
        Py_ssize_t found = -1;
        if (i < 0) {
            found = -2;
        } else {
            for (Py_ssize_t j = i + 1; j >= i; j--) {
                if (j >= k) continue;
                if (!finite4(x, y, pts[2 * j], pts[2 * j + 1])) goto done_s;
                int r = segment_free((const unsigned char *)fv.buf, (const int *)sv.buf, (long)w, (long)h, x, y,
                                     pts[2 * j], pts[2 * j + 1]);
                if (r < 0) goto done_s;
                if (r) {
                    found = j;
                    break;
                }
            }
        }
        result = PyLong_FromSsize_t(found);
    }
done_s:
    PyBuffer_Release(&sv);
done_f:
    PyBuffer_Release(&fv);
done_p:
    PyBuffer_Release(&pv);
    return result;
}

PyDoc_STRVAR(below_roots_doc,
"below_roots(pred, roots, out) -> None\n\n"
"Sets ``out`` (bool per node) to whether the node's way down the shortest-path forest ``pred``\n"
"(int32 per node: the next node, negative at a tree's root) passes a node of ``roots`` (int64),\n"
"itself included: the compiled twin of sc2pool.engine.terrain.pathing._below_roots.");

static PyObject *py_below_roots(PyObject *self, PyObject *args) {
    PyObject *pred_obj, *roots_obj, *out_obj;
    Py_buffer pv, rv, ov;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO:below_roots", &pred_obj, &roots_obj, &out_obj)) return NULL;
    if (!paths_get_vec(pred_obj, &pv, 'i', 0, 0, "below_roots: pred")) return NULL;
    PyObject *result = NULL;
    unsigned char *state = NULL;
    Py_ssize_t *walk = NULL;
    if (!paths_get_vec(roots_obj, &rv, 'q', 0, 0, "below_roots: roots")) goto done_p;
    if (!paths_get_vec(out_obj, &ov, '?', 0, 1, "below_roots: out")) goto done_r;
    {
        Py_ssize_t n = pv.len / 4, nr = rv.len / 8;
        if (ov.len != n) {
            PyErr_Format(PyExc_ValueError, "below_roots: out holds %zd items where pred has %zd", ov.len, n);
            goto done_o;
        }
        const int *pred = pv.buf;
        const long long *roots = rv.buf;
        unsigned char *out = ov.buf;
        /* per node: 0 not known yet, 1 below a root, 2 not, 3 on the walk being followed */
        state = calloc((size_t)n + 1, 1);
        walk = malloc(sizeof(Py_ssize_t) * ((size_t)n + 1));
        if (state == NULL || walk == NULL) {
            PyErr_NoMemory();
            goto done_o;
        }
        for (Py_ssize_t i = 0; i < nr; i++) {
            if (roots[i] < 0 || roots[i] >= n) {
                PyErr_Format(PyExc_ValueError, "below_roots: roots[%zd] = %lld is not a node", i, roots[i]);
                goto done_o;
            }
            state[roots[i]] = 1;
        }
        for (Py_ssize_t v = 0; v < n; v++) {
            /* follow v's way down until a node whose answer is known; every node on it shares that answer */
            Py_ssize_t len = 0, u = v;
            unsigned char got = 2;
            while (state[u] == 0) {
                state[u] = 3;
                walk[len++] = u;
                int p = pred[u];
                if (p < 0) break;
                if (p >= n) {
                    PyErr_Format(PyExc_ValueError, "below_roots: pred[%zd] = %d is not a node", u, p);
                    goto done_o;
                }
                u = p;
            }
            if (state[u] == 1) got = 1; /* (3: a tree's root reached, or a loop: below no root) */
            for (Py_ssize_t i = 0; i < len; i++) state[walk[i]] = got;
            out[v] = state[v] == 1;
        }
        result = Py_NewRef(Py_None);
    }
done_o:
    PyBuffer_Release(&ov);
done_r:
    PyBuffer_Release(&rv);
done_p:
    PyBuffer_Release(&pv);
    free(state);
    free(walk);
    return result;
}
