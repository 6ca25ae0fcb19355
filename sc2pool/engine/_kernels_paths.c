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

static PyObject *py_look_ahead(PyObject *self, PyObject *args) {
    PyObject *m_o, *tm_o, *md_o, *dist_o, *stop_o, *ti_o, *flying_o, *xy_o, *tags_o, *jumpers_o, *free_o,
        *jump_free_o, *cell_tag_o, *out_o;
    Py_ssize_t w, h;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOnnO:look_ahead", &m_o, &tm_o, &md_o, &dist_o, &stop_o, &ti_o,
                          &flying_o, &xy_o, &tags_o, &jumpers_o, &free_o, &jump_free_o, &cell_tag_o, &w, &h, &out_o))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "look_ahead: the grid's width and height must be positive");
        return NULL;
    }
    const char *fn = "look_ahead";
    kn_bufs b;
    b.n = 0;
    PyObject *result = NULL;
    /* per chaser (k), per unit row (n: ti and tags, rows of the int block, may be strided), per cell */
    Py_ssize_t k, n, types, cells = w * h;
    kn_column ti, tags;
    void *jump_free_v;
    const long long *m = kn_vec(&b, m_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    if (m == NULL || !kn_col(&b, ti_o, 'q', KN_ANY, KN_STRIDED, &ti, fn, "ti")) goto done;
    n = ti.len;
    const long long *tm = kn_vec(&b, tm_o, 'q', k, KN_CONTIG, NULL, fn, "tm");
    const double *md = tm ? kn_vec(&b, md_o, 'd', 2 * k, KN_CONTIG, NULL, fn, "md") : NULL;
    const double *dist = md ? kn_vec(&b, dist_o, 'd', k, KN_CONTIG, NULL, fn, "dist") : NULL;
    const double *stop_at = dist ? kn_vec(&b, stop_o, 'd', k, KN_CONTIG, NULL, fn, "stop_at") : NULL;
    const unsigned char *flying = stop_at ? kn_vec(&b, flying_o, '?', KN_ANY, KN_CONTIG, &types, fn, "flying") : NULL;
    const double *xy = flying ? kn_vec(&b, xy_o, 'd', 2 * n, KN_CONTIG, NULL, fn, "xy") : NULL;
    if (xy == NULL || !kn_col(&b, tags_o, 'q', n, KN_STRIDED, &tags, fn, "tags")) goto done;
    const unsigned char *jumpers = kn_vec(&b, jumpers_o, '?', n, KN_CONTIG, NULL, fn, "jumpers");
    const unsigned char *free_ = jumpers ? kn_vec(&b, free_o, '?', cells, KN_CONTIG, NULL, fn, "free") : NULL;
    if (free_ == NULL || !kn_vec_opt(&b, jump_free_o, '?', cells, KN_CONTIG, fn, "jump_free", &jump_free_v)) goto done;
    const long long *cell_tag = kn_vec(&b, cell_tag_o, 'q', cells, KN_CONTIG, NULL, fn, "cell_tag");
    unsigned char *out = cell_tag ? kn_vec(&b, out_o, '?', k, KN_WRITABLE, NULL, fn, "out") : NULL;
    if (out == NULL) goto done;
    const unsigned char *jump_free = jump_free_v;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (m[i] < 0 || m[i] >= n || tm[i] < 0 || tm[i] >= n) {
            PyErr_Format(PyExc_ValueError, "look_ahead: chaser %zd's row or its target's is not a unit row", i);
            goto done;
        }
        long long t = KN_AT(long long, ti, m[i]);
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
        if (!(look > 0.0) || flying[KN_AT(long long, ti, r)]) continue;
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
                                              KN_AT(long long, tags, tm[i]), (long)w, (long)h);
    }
    result = PyBool_FromLong(complete);
done:
    kn_release(&b);
    return result;
}

PyDoc_STRVAR(nearest_cell_doc,
"nearest_cell(free, w, h, x, y, window) -> tuple[int, int] | None\n\n"
"The free cell whose centre is nearest to (x, y) among the cells within ``window`` of the point's\n"
"own (clamped into the grid), when nothing outside that window can be nearer; else None: the\n"
"compiled twin of sc2pool.engine.terrain.pathing._nearest_cell.  ``free`` is the h x w grid of\n"
"free cells (bool, C order).");

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
    kn_bufs b;
    b.n = 0;
    const unsigned char *grid = kn_vec(&b, free_obj, '?', w * h, KN_CONTIG, NULL, "nearest_cell", "free");
    if (grid == NULL) return NULL;
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
    kn_release(&b);
    if (best <= ((double)r - 0.5) * ((double)r - 0.5)) return Py_BuildValue("(ll)", bx, by);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(pending_movers_doc,
"pending_movers(kind, point_kinds, wp, speed, eng, out) -> None\n\n"
"Sets ``out`` (bool per unit row) to POINT_KINDS[kind] & (wp < 0) & (speed > 0) & (eng == 0): the\n"
"compiled twin of sc2pool.engine.sim.systems.pathing._pending_movers.");

static PyObject *py_pending_movers(PyObject *self, PyObject *args) {
    PyObject *kind_o, *pk_o, *wp_o, *speed_o, *eng_o, *out_o;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:pending_movers", &kind_o, &pk_o, &wp_o, &speed_o, &eng_o, &out_o)) return NULL;
    const char *fn = "pending_movers";
    kn_bufs b;
    b.n = 0;
    kn_column kind, pk, wp, speed, eng, out; /* every one may be strided */
    int ok = kn_col(&b, kind_o, 'q', KN_ANY, KN_STRIDED, &kind, fn, "kind") &&
             kn_col(&b, pk_o, '?', KN_ANY, KN_STRIDED, &pk, fn, "point_kinds") &&
             kn_col(&b, wp_o, 'q', kind.len, KN_STRIDED, &wp, fn, "wp") &&
             kn_col(&b, speed_o, 'd', kind.len, KN_STRIDED, &speed, fn, "speed") &&
             kn_col(&b, eng_o, 'q', kind.len, KN_STRIDED, &eng, fn, "eng") &&
             kn_col(&b, out_o, '?', kind.len, KN_STRIDED | KN_WRITABLE, &out, fn, "out") &&
             kn_in_range(kind, pk.len, fn, "kind");
    for (Py_ssize_t i = 0; ok && i < kind.len; i++)
        KN_AT(unsigned char, out, i) = KN_AT(unsigned char, pk, KN_AT(long long, kind, i)) &&
                                       KN_AT(long long, wp, i) < 0 && KN_AT(double, speed, i) > 0.0 &&
                                       KN_AT(long long, eng, i) == 0;
    kn_release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(skip_candidates_doc,
"skip_candidates(rows, hxy, wp, we) -> list[int]\n\n"
"The indices j of the point movers ``rows`` within SKIP of their waypoint (``hxy``: from each to\n"
"it, x and y as two rows) that walk a path (``wp`` >= 0) and whose waypoint is not their walk's\n"
"end (``we``: the store's wx, wy, ex, ey rows, 4 x units, C order): the compiled twin of\n"
"sc2pool.engine.sim.systems.pathing._skip_candidates.");

static PyObject *py_skip_candidates(PyObject *self, PyObject *args) {
    PyObject *rows_obj, *hxy_obj, *wp_obj, *we_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO:skip_candidates", &rows_obj, &hxy_obj, &wp_obj, &we_obj)) return NULL;
    const char *fn = "skip_candidates";
    kn_bufs b;
    b.n = 0;
    PyObject *result = NULL;
    kn_column rows, wp; /* (rows of the int block: may be strided) */
    if (!kn_col(&b, rows_obj, 'q', KN_ANY, KN_STRIDED, &rows, fn, "rows") ||
        !kn_col(&b, wp_obj, 'q', KN_ANY, KN_STRIDED, &wp, fn, "wp"))
        goto done;
    Py_ssize_t k = rows.len, n = wp.len;
    const double *hxy = kn_vec(&b, hxy_obj, 'd', 2 * k, KN_CONTIG, NULL, fn, "hxy");
    const double *we = hxy ? kn_vec(&b, we_obj, 'd', 4 * n, KN_CONTIG, NULL, fn, "we") : NULL;
    if (we == NULL || !kn_in_range(rows, n, fn, "rows")) goto done;
    result = PyList_New(0);
    for (Py_ssize_t j = 0; result != NULL && j < k; j++) {
        long long r = KN_AT(long long, rows, j);
        double hx = hxy[j] * hxy[j], hy = hxy[k + j] * hxy[k + j];
        if (!(hx + hy < PATHS_SKIP * PATHS_SKIP) || KN_AT(long long, wp, r) < 0) continue;
        if (!(we[r] != we[2 * n + r] || we[n + r] != we[3 * n + r])) continue;
        PyObject *jo = PyLong_FromSsize_t(j);
        if (jo == NULL || PyList_Append(result, jo) < 0) Py_CLEAR(result);
        Py_XDECREF(jo);
    }
done:
    kn_release(&b);
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
    const char *fn = "resume_waypoint";
    kn_bufs b;
    b.n = 0;
    PyObject *result = NULL;
    Py_buffer *pv = kn_borrow(&b, pts_obj, 'd', KN_ANY, KN_CONTIG, NULL, fn, "pts");
    if (pv == NULL) goto done;
    if (pv->ndim != 2 || pv->shape[1] != 2 || pv->shape[0] == 0) {
        PyErr_SetString(PyExc_ValueError, "resume_waypoint: pts must hold (k, 2) points, k > 0");
        goto done;
    }
    Py_ssize_t k = pv->shape[0];
    if (nearest < -1 || nearest >= k) {
        PyErr_Format(PyExc_ValueError, "resume_waypoint: nearest %zd is not one of the %zd waypoints", nearest, k);
        goto done;
    }
    const unsigned char *grid = kn_vec(&b, free_obj, '?', w * h, KN_CONTIG, NULL, fn, "free");
    const int *sat = grid ? kn_vec(&b, sat_obj, 'i', (w + 1) * (h + 1), KN_CONTIG, NULL, fn, "sat") : NULL;
    if (sat == NULL) goto done;
    const double *pts = pv->buf;
    Py_ssize_t i = nearest >= 0 ? nearest : paths_nearest_waypoint(pts, k, x, y);
    Py_ssize_t found = -1;
    if (i < 0) {
        found = -2;
    } else {
        for (Py_ssize_t j = i + 1; j >= i; j--) {
            if (j >= k) continue;
            if (!finite4(x, y, pts[2 * j], pts[2 * j + 1])) goto done;
            int r = segment_free(grid, sat, (long)w, (long)h, x, y, pts[2 * j], pts[2 * j + 1]);
            if (r < 0) goto done;
            if (r) {
                found = j;
                break;
            }
        }
    }
    result = PyLong_FromSsize_t(found);
done:
    kn_release(&b);
    return result;
}

PyDoc_STRVAR(below_roots_doc,
"below_roots(pred, roots, out) -> None\n\n"
"Sets ``out`` (bool per node) to whether the node's way down the shortest-path forest ``pred``\n"
"(int32 per node: the next node, negative at a tree's root) passes a node of ``roots`` (int64),\n"
"itself included: the compiled twin of sc2pool.engine.terrain.pathing._below_roots.");

static PyObject *py_below_roots(PyObject *self, PyObject *args) {
    PyObject *pred_obj, *roots_obj, *out_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO:below_roots", &pred_obj, &roots_obj, &out_obj)) return NULL;
    const char *fn = "below_roots";
    kn_bufs b;
    b.n = 0;
    PyObject *result = NULL;
    unsigned char *state = NULL;
    Py_ssize_t *walk = NULL;
    Py_ssize_t n, nr;
    const int *pred = kn_vec(&b, pred_obj, 'i', KN_ANY, KN_CONTIG, &n, fn, "pred");
    const long long *roots = pred ? kn_vec(&b, roots_obj, 'q', KN_ANY, KN_CONTIG, &nr, fn, "roots") : NULL;
    unsigned char *out = roots ? kn_vec(&b, out_obj, '?', n, KN_WRITABLE, NULL, fn, "out") : NULL;
    if (out == NULL || !kn_in_range(KN_FLAT(roots, nr), n, fn, "roots")) goto done;
    /* per node: 0 not known yet, 1 below a root, 2 not, 3 on the walk being followed */
    state = calloc((size_t)n + 1, 1);
    walk = malloc(sizeof(Py_ssize_t) * ((size_t)n + 1));
    if (state == NULL || walk == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nr; i++) state[roots[i]] = 1;
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
                goto done;
            }
            u = p;
        }
        if (state[u] == 1) got = 1; /* (3: a tree's root reached, or a loop: below no root) */
        for (Py_ssize_t i = 0; i < len; i++) state[walk[i]] = got;
        out[v] = state[v] == 1;
    }
    result = Py_NewRef(Py_None);
done:
    kn_release(&b);
    free(state);
    free(walk);
    return result;
}
