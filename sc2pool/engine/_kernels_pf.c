/* The path system's per-loop passes: C twins of the numpy steps of Pathing.chase (the chasers'
 * lengths and followers, the followers to look at, the headings towards their waypoints) and of
 * Pathing.violators (the ground units standing on a blocked cell), in
 * sc2pool/engine/sim/systems/pathing.py (_chase_prep, _chase_pick, _chase_heads, _violators).
 * Included by _kernels.c after its shared argument getters; tests/engine/test_kernels_pf.py holds
 * each to its Python twin. */

#define PF_CHASING (-3)            /* sim/systems/pathing.py's CHASING */
#define PF_DROP_EVERY 4            /* sim/systems/pathing.py's DROP_EVERY */
#define PF_WAYPOINT_REACHED 0.25   /* sim/systems/pathing.py's WAYPOINT_REACHED */
#define PF_CELL_LIMIT 2147483648.0 /* a unit's coordinate beyond this is no cell of any grid */

/* ------------------------------------------------------------------ Pathing.chase */

PyDoc_STRVAR(chase_prep_doc,
"chase_prep(md, m, wp, dist, following) -> int\n\n"
"The compiled twin of sc2pool.engine.sim.systems.pathing._chase_prep, into given arrays: the\n"
"length of each chaser's way to its target (``md``: float64, x and y as two rows of k) into\n"
"``dist`` (float64[k]), and whether chaser row ``m[i]`` (int64[k]) follows a path (``wp``, the\n"
"store's int64 column, is CHASING) into ``following`` (bool[k]); returns how many follow.");

static PyObject *py_chase_prep(PyObject *self, PyObject *args) {
    PyObject *o[5];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOO:chase_prep", &o[0], &o[1], &o[2], &o[3], &o[4])) return NULL;
    const char *fn = "chase_prep";
    kn_bufs b = {.n = 0};
    Py_ssize_t k = 0;
    kn_column wp;
    const long long *m = kn_vec(&b, o[1], 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    const double *md = m ? kn_vec(&b, o[0], 'd', 2 * k, KN_CONTIG, NULL, fn, "md") : NULL;
    double *dist = md ? kn_vec(&b, o[3], 'd', k, KN_WRITABLE, NULL, fn, "dist") : NULL;
    unsigned char *following = dist ? kn_vec(&b, o[4], '?', k, KN_WRITABLE, NULL, fn, "following") : NULL;
    PyObject *result = NULL;
    if (following && kn_col(&b, o[2], 'q', KN_ANY, KN_STRIDED, &wp, fn, "wp") &&
        kn_rows_ok(m, k, wp.len, fn, "m")) {
        Py_ssize_t count = 0;
        for (Py_ssize_t i = 0; i < k; i++) {
            double a = md[i] * md[i], c = md[k + i] * md[k + i];
            dist[i] = sqrt(a + c);
            following[i] = KN_AT(long long, wp, m[i]) == PF_CHASING;
            count += following[i];
        }
        result = PyLong_FromSsize_t(count);
    }
    kn_release(&b);
    return result;
}

PyDoc_STRVAR(chase_pick_doc,
"chase_pick(m, tm, tag, blocked, following, loop) -> list[tuple[int, int, int, bool]]\n\n"
"The compiled twin of sc2pool.engine.sim.systems.pathing._chase_pick: for each chaser i that\n"
"follows a path (``following``, bool[k]), in order, (i, its tag, its target's tag, whether it\n"
"looks whether its straight way is free again: not ``blocked`` and (tag + loop) a multiple of\n"
"DROP_EVERY).  ``m``, ``tm``: the chasers' and their targets' rows (int64[k]); ``tag``: the\n"
"store's int64 column.");

static PyObject *py_chase_pick(PyObject *self, PyObject *args) {
    PyObject *o[5];
    long long loop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOL:chase_pick", &o[0], &o[1], &o[2], &o[3], &o[4], &loop)) return NULL;
    const char *fn = "chase_pick";
    kn_bufs b = {.n = 0};
    Py_ssize_t k = 0;
    kn_column tag;
    const long long *m = kn_vec(&b, o[0], 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    const long long *tm = m ? kn_vec(&b, o[1], 'q', k, KN_CONTIG, NULL, fn, "tm") : NULL;
    const unsigned char *blocked = tm ? kn_vec(&b, o[3], '?', k, KN_CONTIG, NULL, fn, "blocked") : NULL;
    const unsigned char *following = blocked ? kn_vec(&b, o[4], '?', k, KN_CONTIG, NULL, fn, "following") : NULL;
    PyObject *result = NULL;
    if (following && kn_col(&b, o[2], 'q', KN_ANY, KN_STRIDED, &tag, fn, "tag") &&
        kn_rows_ok(m, k, tag.len, fn, "m") && kn_rows_ok(tm, k, tag.len, fn, "tm")) {
        result = PyList_New(0);
        for (Py_ssize_t i = 0; result != NULL && i < k; i++) {
            if (!following[i]) continue;
            long long t = KN_AT(long long, tag, m[i]), tt = KN_AT(long long, tag, tm[i]);
            int again = !blocked[i] && (t + loop) % PF_DROP_EVERY == 0; /* (C's remainder is 0 where Python's is) */
            PyObject *item = Py_BuildValue("(nLLO)", i, t, tt, again ? Py_True : Py_False);
            if (item == NULL || PyList_Append(result, item) < 0) Py_CLEAR(result);
            Py_XDECREF(item);
        }
    }
    kn_release(&b);
    return result;
}

PyDoc_STRVAR(chase_heads_doc,
"chase_heads(m, sel, x, y, wx, wy, dist, md, md_out, cap, check_near) -> list[int]\n\n"
"The compiled twin of sc2pool.engine.sim.systems.pathing._chase_heads: the chasers ``sel``\n"
"(bool[k]) of ``m`` (int64[k]) head for their waypoints (``wx``, ``wy``) from where they stand\n"
"(``x``, ``y``; float64 columns of the store).  With ``check_near``, the rows of those within\n"
"WAYPOINT_REACHED of it, in order, when there are any (nothing written); else ``md_out``\n"
"(float64, 2 x k) is ``md`` with each such chaser's column its heading scaled to ``dist``\n"
"(float64[k]), ``cap`` (float64[k]) its waypoint's distance (inf for the others), and [].");

static PyObject *py_chase_heads(PyObject *self, PyObject *args) {
    PyObject *o[10];
    int check_near;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOp:chase_heads", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &check_near))
        return NULL;
    const char *fn = "chase_heads";
    kn_bufs b = {.n = 0};
    Py_ssize_t k = 0, n = 0;
    kn_column x, y, wx, wy;
    const long long *m = kn_vec(&b, o[0], 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    const unsigned char *sel = m ? kn_vec(&b, o[1], '?', k, KN_CONTIG, NULL, fn, "sel") : NULL;
    const double *dist = sel ? kn_vec(&b, o[6], 'd', k, KN_CONTIG, NULL, fn, "dist") : NULL;
    const double *md = dist ? kn_vec(&b, o[7], 'd', 2 * k, KN_CONTIG, NULL, fn, "md") : NULL;
    double *md_out = md ? kn_vec(&b, o[8], 'd', 2 * k, KN_WRITABLE, NULL, fn, "md_out") : NULL;
    double *cap = md_out ? kn_vec(&b, o[9], 'd', k, KN_WRITABLE, NULL, fn, "cap") : NULL;
    PyObject *result = NULL;
    if (!(cap && kn_col(&b, o[2], 'd', KN_ANY, KN_STRIDED, &x, fn, "x") &&
          kn_col(&b, o[3], 'd', n = x.len, KN_STRIDED, &y, fn, "y") &&
          kn_col(&b, o[4], 'd', n, KN_STRIDED, &wx, fn, "wx") && kn_col(&b, o[5], 'd', n, KN_STRIDED, &wy, fn, "wy") &&
          kn_rows_ok(m, k, n, fn, "m")))
        goto done;
    result = PyList_New(0);
    if (check_near) {
        for (Py_ssize_t i = 0; result != NULL && i < k; i++) {
            if (!sel[i]) continue;
            long long r = m[i];
            double hx = KN_AT(double, wx, r) - KN_AT(double, x, r), hy = KN_AT(double, wy, r) - KN_AT(double, y, r);
            double a = hx * hx, c = hy * hy;
            if (!(sqrt(a + c) < PF_WAYPOINT_REACHED)) continue;
            PyObject *ro = PyLong_FromLongLong(r);
            if (ro == NULL || PyList_Append(result, ro) < 0) Py_CLEAR(result);
            Py_XDECREF(ro);
        }
        if (result == NULL || PyList_GET_SIZE(result)) goto done;
    }
    memcpy(md_out, md, sizeof(double) * 2 * (size_t)k);
    for (Py_ssize_t i = 0; i < k; i++) {
        cap[i] = INFINITY;
        if (!sel[i]) continue;
        long long r = m[i];
        double hx = KN_AT(double, wx, r) - KN_AT(double, x, r), hy = KN_AT(double, wy, r) - KN_AT(double, y, r);
        double a = hx * hx, c = hy * hy;
        double hd = sqrt(a + c);
        double scale = hd > 1e-9 ? dist[i] / hd : 0.0;
        md_out[i] = hx * scale;
        md_out[k + i] = hy * scale;
        cap[i] = hd;
    }
done:
    kn_release(&b);
    return result;
}

/* ------------------------------------------------------------------ Pathing.violators */

PyDoc_STRVAR(violators_doc,
"violators(ground, xy, free, jumpers, jump_free, kind, econ, w, out) -> int\n\n"
"The compiled twin of sc2pool.engine.sim.systems.pathing._violators, into ``out`` (int64, at\n"
"least n items): the rows of the ``ground`` units (bool[n]) whose cell (``xy``: float64, x then y,\n"
"2 x n; truncated as numpy's cast) is not ``free`` (bool per cell of a grid ``w`` wide; a Reaper's,\n"
"``jumpers`` (bool[n]), on ``jump_free`` when that is not None) and whose ``kind`` (int64 column)\n"
"is not ``econ``, in order; returns how many.");

static PyObject *py_violators(PyObject *self, PyObject *args) {
    PyObject *o[6], *out_obj;
    long long econ;
    Py_ssize_t w;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOLnO:violators", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &econ, &w, &out_obj))
        return NULL;
    const char *fn = "violators";
    if (w <= 0) {
        PyErr_SetString(PyExc_ValueError, "violators: the grid's width must be positive");
        return NULL;
    }
    kn_bufs b = {.n = 0};
    Py_ssize_t n = 0, cells = 0;
    kn_column kind;
    const unsigned char *jump_free = NULL;
    const unsigned char *ground = kn_vec(&b, o[0], '?', KN_ANY, KN_CONTIG, &n, fn, "ground");
    const double *xy = ground ? kn_vec(&b, o[1], 'd', 2 * n, KN_CONTIG, NULL, fn, "xy") : NULL;
    const unsigned char *free_ = xy ? kn_vec(&b, o[2], '?', KN_ANY, KN_CONTIG, &cells, fn, "free") : NULL;
    const unsigned char *jumpers = free_ ? kn_vec(&b, o[3], '?', n, KN_CONTIG, NULL, fn, "jumpers") : NULL;
    long long *out = NULL;
    PyObject *result = NULL;
    if (jumpers && kn_vec_opt(&b, o[4], '?', cells, KN_CONTIG, fn, "jump_free", (void **)&jump_free) &&
        kn_col(&b, o[5], 'q', n, KN_STRIDED, &kind, fn, "kind"))
        out = kn_vec(&b, out_obj, 'q', -n - 1, KN_WRITABLE, NULL, fn, "out");
    if (out == NULL) goto done;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double x = xy[i], y = xy[n + i];
        if (!(x > -PF_CELL_LIMIT && x < PF_CELL_LIMIT && y > -PF_CELL_LIMIT && y < PF_CELL_LIMIT)) {
            PyErr_Format(PyExc_ValueError, "violators: unit %zd stands off the grid", i);
            goto done;
        }
        /* as numpy's cast to int64 (toward zero) and its take (a negative index counts from the end) */
        long long idx = (long long)y * (long long)w + (long long)x;
        if (idx < -(long long)cells || idx >= (long long)cells) {
            PyErr_Format(PyExc_ValueError, "violators: unit %zd stands off the grid", i);
            goto done;
        }
        if (idx < 0) idx += cells;
        const unsigned char *grid = jump_free != NULL && jumpers[i] ? jump_free : free_;
        if (ground[i] && !grid[idx] && KN_AT(long long, kind, i) != econ) out[count++] = i;
    }
    result = PyLong_FromSsize_t(count);
done:
    kn_release(&b);
    return result;
}

/* ------------------------------------------------------------------ _Layer.update */

PyDoc_STRVAR(sat_update_doc,
"sat_update(free, sat, w, h, y0, x0) -> None\n\n"
"Brings ``sat``, the summed-area table of the blocked cells (int32, (h + 1) x (w + 1), C order;\n"
"sat[y, x] the blocked cells of rows < y and columns < x) of ``free`` (bool, h x w) up to date\n"
"after cells changed only in rows >= ``y0`` and columns >= ``x0``: the table's entries below and\n"
"right of them are summed again (what sc2pool.engine.terrain.pathing._blocked_sat gives for the\n"
"whole grid; the integers are exact either way).");

static PyObject *py_sat_update(PyObject *self, PyObject *args) {
    PyObject *free_obj, *sat_obj;
    Py_ssize_t w, h, y0, x0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnnnn:sat_update", &free_obj, &sat_obj, &w, &h, &y0, &x0)) return NULL;
    const char *fn = "sat_update";
    if (w <= 0 || h <= 0 || y0 < 0 || x0 < 0) {
        PyErr_SetString(PyExc_ValueError, "sat_update: the grid's width and height must be positive, y0 and x0 not negative");
        return NULL;
    }
    kn_bufs b = {.n = 0};
    const unsigned char *free_ = kn_vec(&b, free_obj, '?', w * h, KN_CONTIG, NULL, fn, "free");
    int *sat = free_ ? kn_vec(&b, sat_obj, 'i', (w + 1) * (h + 1), KN_WRITABLE, NULL, fn, "sat") : NULL;
    if (sat == NULL) {
        kn_release(&b);
        return NULL;
    }
    Py_ssize_t stride = w + 1;
    for (Py_ssize_t y = y0; y < h && x0 < w; y++) {
        int *above = sat + y * stride, *row = above + stride;
        const unsigned char *cells = free_ + y * w;
        int run = row[x0] - above[x0]; /* this row's blocked cells left of x0 (unchanged) */
        for (Py_ssize_t x = x0; x < w; x++) {
            run += !cells[x];
            row[x + 1] = above[x + 1] + run;
        }
    }
    kn_release(&b);
    Py_RETURN_NONE;
}
