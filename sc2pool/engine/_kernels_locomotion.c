/* Locomotion's kernels (included by _kernels.c): C twins of the per-walker arithmetic of
 * sc2pool/engine/sim/systems/locomotion.py, which runs every game loop for every walker.
 *
 * They take the unit store's columns as they are (one contiguous row of the float or int block
 * each) and write the results in place, as the numpy code does; arctan2 and hypot stay in numpy
 * (the callers compute the headings from what these return, and pass in the lengths).
 */

#define LOCO_MAX_BUFS 16 /* buffers one kernel call borrows at most */

/* The buffers a kernel call has borrowed, released together whichever way the call ends. */
typedef struct {
    Py_buffer v[LOCO_MAX_BUFS];
    int n;
} loco_bufs;

static void loco_release(loco_bufs *b) {
    while (b->n) PyBuffer_Release(&b->v[--b->n]);
}

/* Borrow `obj` as an array of one kind ('d' float64, 'q' int64, '?' bool) holding `n` items (any
 * count when n < 0): C-contiguous of any shape when `stride` is NULL, else one-dimensional and
 * strided or not (the store's per-unit columns are rows of its blocks, some of them column-major
 * gathers), with *stride set to the items from one unit's value to the next.  NULL with a
 * ValueError naming `what` otherwise. */
static void *loco_get(loco_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int writable,
                      const char *fn, const char *what, Py_ssize_t *count, Py_ssize_t *stride) {
    Py_buffer *v = &b->v[b->n];
    int flags = (stride ? PyBUF_STRIDES : PyBUF_C_CONTIGUOUS) | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    const char *kinds = kind == 'd' ? "float64" : kind == 'q' ? "int64" : "bool";
    const char *shape = stride ? "one-dimensional" : "C-contiguous";
    const char *wr = writable ? " writable" : "";
    if (PyObject_GetBuffer(obj, v, flags) < 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be a %s%s %s array", fn, what, shape, wr, kinds);
        return NULL;
    }
    b->n++;
    const char *f = v->format;
    size_t fl = strlen(f);
    char last = fl ? f[fl - 1] : '\0';
    int ok = kind == 'd' ? last == 'd' && v->itemsize == 8
           : kind == 'q' ? (last == 'l' || last == 'q') && v->itemsize == 8
           : last == '?' && v->itemsize == 1;
    /* (a byte-order prefix other than native would need swapping) */
    if (ok && fl == 2) ok = f[0] == '=' || f[0] == '@' || f[0] == '<';
    if (ok && stride) ok = v->ndim == 1 && v->strides[0] % v->itemsize == 0;
    if (!ok || fl > 2) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be a %s%s %s array", fn, what, shape, wr, kinds);
        return NULL;
    }
    Py_ssize_t have = v->len / v->itemsize;
    if (n >= 0 && have != n) {
        PyErr_Format(PyExc_ValueError, "%s: %s holds %zd items where %zd are needed", fn, what, have, n);
        return NULL;
    }
    if (count) *count = have;
    if (stride) *stride = v->strides[0] / v->itemsize;
    return v->buf;
}

/* Whether every row in `rows` (k of them) is a unit row below `n`; a ValueError naming `what`
 * otherwise. */
static int loco_rows_ok(const long long *rows, Py_ssize_t k, Py_ssize_t n, const char *fn, const char *what) {
    for (Py_ssize_t j = 0; j < k; j++) {
        if (rows[j] < 0 || rows[j] >= n) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] = %lld is not a unit row (there are %zd)",
                         fn, what, j, rows[j], n);
            return 0;
        }
    }
    return 1;
}

PyDoc_STRVAR(blocked_ahead_doc,
"blocked_ahead(m, hxy, rows2, vec, slide, walking, kind, eng, owner, idle, n_yield, out) -> None\n\n"
"The per-pair work of sc2pool.engine.sim.systems.locomotion.Locomotion._blocked_ahead: sets\n"
"``out[j]`` (bool, one per walker, cleared by the caller) when walker ``m[j]`` (distinct unit\n"
"rows, int64) heading ``hxy[:, j]`` (float64, x and y as two rows) touches a unit that will not\n"
"make way within 45 degrees ahead, and gives each newly blocked walker its ``slide`` (+1 or -1,\n"
"away from its blockers, in place).  ``rows2`` (int64, 2 x P) and ``vec`` (float64, 3 x P) are\n"
"the touching pairs of Collision.touching; ``slide``, ``walking``, ``kind``, ``eng`` and\n"
"``owner`` are per unit row (strided or not); ``idle`` is the order kind IDLE; the first\n"
"``n_yield`` walkers pass through idle allies.");

static PyObject *py_blocked_ahead(PyObject *self, PyObject *args) {
    PyObject *m_o, *hxy_o, *rows2_o, *vec_o, *slide_o, *walking_o, *kind_o, *eng_o, *owner_o, *out_o;
    long long idle_kind;
    Py_ssize_t n_yield;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOLnO:blocked_ahead", &m_o, &hxy_o, &rows2_o, &vec_o, &slide_o,
                          &walking_o, &kind_o, &eng_o, &owner_o, &idle_kind, &n_yield, &out_o))
        return NULL;
    const char *fn = "blocked_ahead";
    loco_bufs b = {.n = 0};
    long *pos = NULL;
    long *pull = NULL;
    PyObject *ret = NULL;
    Py_ssize_t n, k, p2;
    Py_ssize_t s_sl, s_wa, s_ki, s_en, s_ow; /* the per-unit columns' strides */
    double *slide = loco_get(&b, slide_o, 'd', -1, 1, fn, "slide", &n, &s_sl);
    if (slide == NULL) goto done;
    const long long *m = loco_get(&b, m_o, 'q', -1, 0, fn, "m", &k, NULL);
    if (m == NULL) goto done;
    const double *hxy = loco_get(&b, hxy_o, 'd', 2 * k, 0, fn, "hxy", NULL, NULL);
    if (hxy == NULL) goto done;
    const long long *rows2 = loco_get(&b, rows2_o, 'q', -1, 0, fn, "rows2", &p2, NULL);
    if (rows2 == NULL) goto done;
    if (p2 % 2) {
        PyErr_Format(PyExc_ValueError, "%s: rows2 must hold two rows (it holds %zd items)", fn, p2);
        goto done;
    }
    Py_ssize_t np_ = p2 / 2;
    const double *vec = loco_get(&b, vec_o, 'd', 3 * np_, 0, fn, "vec", NULL, NULL);
    const unsigned char *walking = vec ? loco_get(&b, walking_o, '?', n, 0, fn, "walking", NULL, &s_wa) : NULL;
    const long long *kind = walking ? loco_get(&b, kind_o, 'q', n, 0, fn, "kind", NULL, &s_ki) : NULL;
    const long long *eng = kind ? loco_get(&b, eng_o, 'q', n, 0, fn, "eng", NULL, &s_en) : NULL;
    const long long *owner = eng ? loco_get(&b, owner_o, 'q', n, 0, fn, "owner", NULL, &s_ow) : NULL;
    unsigned char *out = owner ? loco_get(&b, out_o, '?', k, 1, fn, "out", NULL, NULL) : NULL;
    if (out == NULL) goto done;
    if (!loco_rows_ok(m, k, n, fn, "m") || !loco_rows_ok(rows2, p2, n, fn, "rows2")) goto done;
    pos = (long *)malloc(sizeof(long) * (size_t)(n ? n : 1));
    pull = (long *)calloc((size_t)(k ? k : 1), sizeof(long));
    if (pos == NULL || pull == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* pos: each unit row's walker index, -1 for the units not walking here */
    for (Py_ssize_t r = 0; r < n; r++) pos[r] = -1;
    for (Py_ssize_t j = 0; j < k; j++) pos[m[j]] = (long)j;
    const long long *src = rows2, *oth = rows2 + np_;
    const double *vxs = vec, *vys = vec + np_, *hv2s = vec + 2 * np_;
    const double *hxs = hxy, *hys = hxy + k;
    for (Py_ssize_t q = 0; q < np_; q++) {
        long i = pos[src[q]];
        if (i < 0) continue;
        long long o = oth[q];
        /* the other unit stays put: sliding already, or not walking */
        int firm = slide[o * s_sl] != 0.0 || !walking[o * s_wa];
        /* an idle ally makes way for a mover to a point */
        if (firm && n_yield && i < n_yield && kind[o * s_ki] == idle_kind && eng[o * s_en] == 0 &&
            owner[src[q] * s_ow] == owner[o * s_ow])
            firm = 0;
        if (!firm) continue;
        double hx = hxs[i], hy = hys[i], vx = vxs[q], vy = vys[q];
        double h2 = hx * hx + hy * hy;
        double dot = vx * hx + vy * hy;
        /* within 45 degrees ahead: cos^2 >= 1/2, and in front */
        if (!(dot * dot >= hv2s[q] * h2 && dot > 0)) continue;
        out[i] = 1;
        /* the blocker's side of the heading; go round the other way */
        pull[i] += hx * vy - hy * vx >= 0.0 ? -1 : 1;
    }
    /* (``pull`` counts the +-1 votes: the Python twin's float sums of them are these integers) */
    for (Py_ssize_t j = 0; j < k; j++) {
        double *sl = &slide[m[j] * s_sl];
        if (out[j] && *sl == 0.0) *sl = pull[j] >= 0 ? 1.0 : -1.0;
    }
    ret = Py_NewRef(Py_None);
done:
    free(pos);
    free(pull);
    loco_release(&b);
    return ret;
}

PyDoc_STRVAR(move_to_points_doc,
"move_to_points(m, loop, start, seg, F, x_row, o_row, t_row, speed, dd, flags) -> bool\n\n"
"The per-mover arithmetic of sc2pool.engine.sim.systems.locomotion.Locomotion.move_to_points\n"
"(its Python twin is locomotion._move_to_points): movers ``m`` (distinct unit rows, int64) not\n"
"yet on a segment (``seg`` < 0) start one at loop ``start`` from where they stand; each is placed\n"
"where its straight segment puts it at ``loop``, or on the segment's end once it gets there.\n"
"``F`` is the unit store's float block (float64, rows x len(seg), C order, written in place) with\n"
"the position in rows ``x_row`` and ``x_row + 1``, the segment's start in ``o_row`` and\n"
"``o_row + 1`` and its end in ``t_row`` and ``t_row + 1``; ``seg`` and ``speed`` (per unit) may be\n"
"strided.  Writes, per mover, ``dd`` (float64, 3 x len(m)): the segment's x and y (for its\n"
"heading) and how far past its end the mover travelled, and ``flags`` (bool, 2 x len(m)):\n"
"whether the segment has a length, whether the mover arrived.  Returns whether any mover's\n"
"position changed.");

static PyObject *py_move_to_points(PyObject *self, PyObject *args) {
    PyObject *m_o, *seg_o, *f_o, *speed_o, *dd_o, *flags_o;
    long long loop, start;
    Py_ssize_t x_row, o_row, t_row;
    (void)self;
    if (!PyArg_ParseTuple(args, "OLLOOnnnOOO:move_to_points", &m_o, &loop, &start, &seg_o, &f_o, &x_row, &o_row,
                          &t_row, &speed_o, &dd_o, &flags_o))
        return NULL;
    const char *fn = "move_to_points";
    loco_bufs b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n, k, nf;
    Py_ssize_t s_sg, s_sp; /* the per-unit columns' strides */
    long long *seg = loco_get(&b, seg_o, 'q', -1, 1, fn, "seg", &n, &s_sg);
    const long long *m = seg ? loco_get(&b, m_o, 'q', -1, 0, fn, "m", &k, NULL) : NULL;
    double *F = m ? loco_get(&b, f_o, 'd', -1, 1, fn, "F", &nf, NULL) : NULL;
    if (F == NULL) goto done;
    Py_ssize_t rows = n ? nf / n : 0;
    if (rows * n != nf) {
        PyErr_Format(PyExc_ValueError, "%s: F holds %zd items, not rows of %zd units", fn, nf, n);
        goto done;
    }
    if (x_row < 0 || o_row < 0 || t_row < 0 || x_row + 1 >= rows || o_row + 1 >= rows || t_row + 1 >= rows) {
        PyErr_Format(PyExc_ValueError, "%s: x_row, o_row and t_row must be rows of F (it has %zd)", fn, rows);
        goto done;
    }
    const double *speed = loco_get(&b, speed_o, 'd', n, 0, fn, "speed", NULL, &s_sp);
    double *dd = speed ? loco_get(&b, dd_o, 'd', 3 * k, 1, fn, "dd", NULL, NULL) : NULL;
    unsigned char *flags = dd ? loco_get(&b, flags_o, '?', 2 * k, 1, fn, "flags", NULL, NULL) : NULL;
    if (flags == NULL || !loco_rows_ok(m, k, n, fn, "m")) goto done;
    double *x = F + x_row * n, *y = x + n, *ox = F + o_row * n, *oy = ox + n;
    const double *tx = F + t_row * n, *ty = tx + n;
    int moved = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        long long r = m[j], s = seg[r * s_sg];
        if (s < 0) { /* a segment not yet started starts here and now */
            ox[r] = x[r];
            oy[r] = y[r];
            seg[r * s_sg] = s = start;
        }
        double dx = tx[r] - ox[r], dy = ty[r] - oy[r];
        double length = sqrt(dx * dx + dy * dy);
        double travel = (double)(loop - s) * speed[r * s_sp];
        int arrived = travel >= length, some = length > 0;
        /* (a mover that has not arrived has a length > 0: the arrived ones take their target) */
        double frac = travel / (some ? length : 1.0);
        double nx = arrived ? tx[r] : dx * frac + ox[r];
        double ny = arrived ? ty[r] : dy * frac + oy[r];
        if (nx != x[r] || ny != y[r]) moved = 1;
        x[r] = nx;
        y[r] = ny;
        dd[j] = dx;
        dd[k + j] = dy;
        dd[2 * k + j] = travel - length;
        flags[j] = (unsigned char)some;
        flags[k + j] = (unsigned char)arrived;
    }
    ret = PyBool_FromLong(moved);
done:
    loco_release(&b);
    return ret;
}

/* Borrow `obj` as loco_get does, or leave *out NULL when it is None: 1 on success. */
static int loco_get_opt(loco_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int writable, const char *fn,
                        const char *what, Py_ssize_t *stride, const void **out) {
    *out = NULL;
    if (obj == Py_None) return 1;
    *out = loco_get(b, obj, kind, n, writable, fn, what, NULL, stride);
    return *out != NULL;
}

/* Whether every kind in the column `kind` (n of them, `stride` apart; only the rows `rows`, k of
 * them, when given) indexes the table of `nk` kinds; a ValueError otherwise. */
static int loco_kinds_ok(const long long *kind, Py_ssize_t stride, Py_ssize_t n, const long long *rows, Py_ssize_t k,
                         Py_ssize_t nk, const char *fn) {
    Py_ssize_t count = rows ? k : n;
    for (Py_ssize_t j = 0; j < count; j++) {
        long long r = rows ? rows[j] : (long long)j, v = kind[r * stride];
        if (v < 0 || v >= nk) {
            PyErr_Format(PyExc_ValueError, "%s: kind[%lld] = %lld is not an order kind (there are %zd)", fn, r, v, nk);
            return 0;
        }
    }
    return 1;
}

/* numpy's maximum and minimum of two doubles: a NaN on either side is the answer. */
static inline double loco_max(double a, double b) { return a != a || a >= b ? a : b; }
static inline double loco_min(double a, double b) { return a != a || a <= b ? a : b; }

PyDoc_STRVAR(walkers_doc,
"walkers(kind, point_kinds, has_t, in_range, speed, hold, seg, slide, masks, rows) -> tuple[int, int]\n\n"
"Who walks this loop (its Python twin is locomotion._walkers): writes per unit row ``masks``\n"
"(bool, 4 x len(kind)): the point-goal movers (a point order, ``point_kinds`` of the unit's\n"
"``kind``, and no target, ``has_t``), the chasers (a target not ``in_range``, kind not\n"
"``hold``), the walkers (either), the mobile units (``speed`` > 0; movers and chasers are\n"
"mobile); and ``rows`` (int64, len(kind)): the movers' rows, then the chasers', each ascending.\n"
"Sets ``seg`` to -1 for the units not moving to a point and ``slide`` to 0 for the units not\n"
"walking.  ``kind``, ``has_t``, ``in_range``, ``speed``, ``seg`` and ``slide`` are per unit row\n"
"(strided or not).  Returns the numbers of movers and chasers.");

static PyObject *py_walkers(PyObject *self, PyObject *args) {
    PyObject *kind_o, *pk_o, *has_o, *inr_o, *speed_o, *seg_o, *slide_o, *masks_o, *rows_o;
    long long hold;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOLOOOO:walkers", &kind_o, &pk_o, &has_o, &inr_o, &speed_o, &hold, &seg_o,
                          &slide_o, &masks_o, &rows_o))
        return NULL;
    const char *fn = "walkers";
    loco_bufs b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n, nk;
    Py_ssize_t s_ki, s_ha, s_in, s_sp, s_sg, s_sl; /* the per-unit columns' strides */
    const long long *kind = loco_get(&b, kind_o, 'q', -1, 0, fn, "kind", &n, &s_ki);
    const unsigned char *pk = kind ? loco_get(&b, pk_o, '?', -1, 0, fn, "point_kinds", &nk, NULL) : NULL;
    const unsigned char *has_t = pk ? loco_get(&b, has_o, '?', n, 0, fn, "has_t", NULL, &s_ha) : NULL;
    const unsigned char *in_range = has_t ? loco_get(&b, inr_o, '?', n, 0, fn, "in_range", NULL, &s_in) : NULL;
    const double *speed = in_range ? loco_get(&b, speed_o, 'd', n, 0, fn, "speed", NULL, &s_sp) : NULL;
    long long *seg = speed ? loco_get(&b, seg_o, 'q', n, 1, fn, "seg", NULL, &s_sg) : NULL;
    double *slide = seg ? loco_get(&b, slide_o, 'd', n, 1, fn, "slide", NULL, &s_sl) : NULL;
    unsigned char *masks = slide ? loco_get(&b, masks_o, '?', 4 * n, 1, fn, "masks", NULL, NULL) : NULL;
    long long *rows = masks ? loco_get(&b, rows_o, 'q', n, 1, fn, "rows", NULL, NULL) : NULL;
    if (rows == NULL || !loco_kinds_ok(kind, s_ki, n, NULL, 0, nk, fn)) goto done;
    unsigned char *point_goal = masks, *chase = masks + n, *walking = masks + 2 * n, *mobile = masks + 3 * n;
    Py_ssize_t n_pg = 0, n_ch = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        long long k = kind[r * s_ki];
        int mob = speed[r * s_sp] > 0, has = has_t[r * s_ha] != 0;
        int pg = pk[k] && !has && mob;
        int ch = has && !in_range[r * s_in] && k != hold && mob;
        point_goal[r] = (unsigned char)pg;
        chase[r] = (unsigned char)ch;
        walking[r] = (unsigned char)(pg || ch);
        mobile[r] = (unsigned char)mob;
        /* a straight move to a point restarts from wherever it resumes; going round a blocker
         * lasts while the walk does */
        if (!pg) seg[r * s_sg] = -1;
        if (!(pg || ch)) slide[r * s_sl] = 0.0;
        if (pg) rows[n_pg++] = r;
        n_ch += ch;
    }
    for (Py_ssize_t r = 0, j = n_pg; r < n; r++)
        if (chase[r]) rows[j++] = r;
    ret = Py_BuildValue("(nn)", n_pg, n_ch);
done:
    loco_release(&b);
    return ret;
}

PyDoc_STRVAR(headings_doc,
"headings(rows, n_pg, steer, F, xy2, tsafe, point_kinds, kind, wp, rng, radius, follow, hp, md, tm, stop_t)\n"
"    -> None\n\n"
"The walkers' headings as the loop starts (its Python twin is locomotion._headings): ``rows``\n"
"(int64, distinct unit rows) holds the first ``n_pg`` walkers, movers to a point, then chasers.\n"
"Writes per mover ``hp`` (float64, 4 x n_pg): the way from it to the end of its segment (rows\n"
"``steer`` and ``steer + 1`` of the float block ``F``, C order, less its position in ``xy2``,\n"
"float64 2 x units), then where it stands; per chaser its target ``tm`` (int64, ``tsafe`` of its\n"
"row) and ``md`` (float64, 2 x chasers): the way to the target.  When ``wp`` (per unit, writable)\n"
"is not None, a chaser with a point order (``point_kinds`` of its ``kind``) on a path (``wp``\n"
">= 0) leaves it (-1).  When ``stop_t`` (float64, per chaser) is not None it gets the distance\n"
"each chaser stops at: range plus both radii less 0.01, both radii for a unit ``follow``ing\n"
"(per unit, or None).  ``tsafe``, ``kind``, ``rng``, ``radius`` are per unit (strided or not).");

static PyObject *py_headings(PyObject *self, PyObject *args) {
    PyObject *rows_o, *f_o, *xy_o, *ts_o, *pk_o, *kind_o, *wp_o, *rng_o, *rad_o, *fol_o, *hp_o, *md_o, *tm_o, *st_o;
    Py_ssize_t n_pg, steer;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnOOOOOOOOOOOOO:headings", &rows_o, &n_pg, &steer, &f_o, &xy_o, &ts_o, &pk_o,
                          &kind_o, &wp_o, &rng_o, &rad_o, &fol_o, &hp_o, &md_o, &tm_o, &st_o))
        return NULL;
    const char *fn = "headings";
    loco_bufs b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n, k, nf, nk;
    Py_ssize_t s_ts, s_ki, s_wp = 0, s_rn, s_ra, s_fo = 0; /* the per-unit columns' strides */
    const long long *kind = loco_get(&b, kind_o, 'q', -1, 0, fn, "kind", &n, &s_ki);
    const long long *rows = kind ? loco_get(&b, rows_o, 'q', -1, 0, fn, "rows", &k, NULL) : NULL;
    if (rows == NULL) goto done;
    if (n_pg < 0 || n_pg > k) {
        PyErr_Format(PyExc_ValueError, "%s: n_pg = %zd is not a count of rows (there are %zd)", fn, n_pg, k);
        goto done;
    }
    Py_ssize_t n_ch = k - n_pg;
    const double *F = loco_get(&b, f_o, 'd', -1, 0, fn, "F", &nf, NULL);
    if (F == NULL) goto done;
    if (steer < 0 || (steer + 2) * n > nf) {
        PyErr_Format(PyExc_ValueError, "%s: steer = %zd is not a row of F (holding %zd items for %zd units)", fn,
                     steer, nf, n);
        goto done;
    }
    const double *xy = loco_get(&b, xy_o, 'd', 2 * n, 0, fn, "xy2", NULL, NULL);
    const long long *tsafe = xy ? loco_get(&b, ts_o, 'q', n, 0, fn, "tsafe", NULL, &s_ts) : NULL;
    const unsigned char *pk = tsafe ? loco_get(&b, pk_o, '?', -1, 0, fn, "point_kinds", &nk, NULL) : NULL;
    const void *wp_v = NULL, *fol_v = NULL, *st_v = NULL;
    if (pk == NULL || !loco_get_opt(&b, wp_o, 'q', n, 1, fn, "wp", &s_wp, &wp_v)) goto done;
    const double *rng = loco_get(&b, rng_o, 'd', n, 0, fn, "rng", NULL, &s_rn);
    const double *radius = rng ? loco_get(&b, rad_o, 'd', n, 0, fn, "radius", NULL, &s_ra) : NULL;
    if (radius == NULL || !loco_get_opt(&b, fol_o, '?', n, 0, fn, "follow", &s_fo, &fol_v)) goto done;
    double *hp = loco_get(&b, hp_o, 'd', 4 * n_pg, 1, fn, "hp", NULL, NULL);
    double *md = hp ? loco_get(&b, md_o, 'd', 2 * n_ch, 1, fn, "md", NULL, NULL) : NULL;
    long long *tm = md ? loco_get(&b, tm_o, 'q', n_ch, 1, fn, "tm", NULL, NULL) : NULL;
    if (tm == NULL || !loco_get_opt(&b, st_o, 'd', n_ch, 1, fn, "stop_t", NULL, &st_v)) goto done;
    if (!loco_rows_ok(rows, k, n, fn, "rows")) goto done;
    long long *wp = (long long *)wp_v;
    const unsigned char *follow = fol_v;
    double *stop_t = (double *)st_v;
    const long long *m = rows + n_pg;
    for (Py_ssize_t i = 0; i < n_ch; i++) {
        long long t = tsafe[m[i] * s_ts];
        if (t < 0 || t >= n) {
            PyErr_Format(PyExc_ValueError, "%s: tsafe[%lld] = %lld is not a unit row (there are %zd)", fn, m[i], t, n);
            goto done;
        }
    }
    if (wp && !loco_kinds_ok(kind, s_ki, n, m, n_ch, nk, fn)) goto done;
    const double *x = xy, *y = xy + n, *sx = F + steer * n, *sy = sx + n;
    for (Py_ssize_t j = 0; j < n_pg; j++) {
        long long r = rows[j];
        hp[j] = sx[r] - x[r];
        hp[n_pg + j] = sy[r] - y[r];
        hp[2 * n_pg + j] = x[r];
        hp[3 * n_pg + j] = y[r];
    }
    for (Py_ssize_t i = 0; i < n_ch; i++) {
        long long r = m[i], t = tsafe[r * s_ts];
        tm[i] = t;
        md[i] = x[t] - x[r];
        md[n_ch + i] = y[t] - y[r];
        if (wp && pk[kind[r * s_ki]] && wp[r * s_wp] >= 0) wp[r * s_wp] = -1;
        if (stop_t) {
            double r_m = radius[r * s_ra], r_t = radius[t * s_ra];
            stop_t[i] = follow && follow[r * s_fo] ? r_m + r_t : rng[r * s_rn] + r_m + r_t - 0.01;
        }
    }
    ret = Py_NewRef(Py_None);
done:
    loco_release(&b);
    return ret;
}

PyDoc_STRVAR(sidestep_doc,
"sidestep(pg, blocked, hp, hb, speed, slide, seg, xy2) -> None\n\n"
"Blocked movers side-step round their blockers (its Python twin is locomotion._sidestep): each\n"
"mover ``pg[j]`` (distinct unit rows, int64) with ``blocked[j]`` (bool) steps its ``speed`` to\n"
"its ``slide`` side (+1 left) of its heading ``hp[:2, j]`` from where it stood, ``hp[2:, j]``\n"
"(float64, 4 x len(pg)), into ``xy2`` (float64, 2 x units, written in place); ``hb`` (float64)\n"
"holds the blocked ones' heading lengths, in order.  Their segments restart (``seg`` -1).\n"
"``speed``, ``slide`` and ``seg`` are per unit row (strided or not).");

static PyObject *py_sidestep(PyObject *self, PyObject *args) {
    PyObject *pg_o, *bl_o, *hp_o, *hb_o, *speed_o, *slide_o, *seg_o, *xy_o;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:sidestep", &pg_o, &bl_o, &hp_o, &hb_o, &speed_o, &slide_o, &seg_o, &xy_o))
        return NULL;
    const char *fn = "sidestep";
    loco_bufs b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n, k, nb;
    Py_ssize_t s_sg, s_sp, s_sl; /* the per-unit columns' strides */
    long long *seg = loco_get(&b, seg_o, 'q', -1, 1, fn, "seg", &n, &s_sg);
    const long long *pg = seg ? loco_get(&b, pg_o, 'q', -1, 0, fn, "pg", &k, NULL) : NULL;
    const unsigned char *blocked = pg ? loco_get(&b, bl_o, '?', k, 0, fn, "blocked", NULL, NULL) : NULL;
    const double *hp = blocked ? loco_get(&b, hp_o, 'd', 4 * k, 0, fn, "hp", NULL, NULL) : NULL;
    const double *hb = hp ? loco_get(&b, hb_o, 'd', -1, 0, fn, "hb", &nb, NULL) : NULL;
    const double *speed = hb ? loco_get(&b, speed_o, 'd', n, 0, fn, "speed", NULL, &s_sp) : NULL;
    const double *slide = speed ? loco_get(&b, slide_o, 'd', n, 0, fn, "slide", NULL, &s_sl) : NULL;
    double *xy = slide ? loco_get(&b, xy_o, 'd', 2 * n, 1, fn, "xy2", NULL, NULL) : NULL;
    if (xy == NULL || !loco_rows_ok(pg, k, n, fn, "pg")) goto done;
    Py_ssize_t want = 0;
    for (Py_ssize_t j = 0; j < k; j++) want += blocked[j] != 0;
    if (nb != want) {
        PyErr_Format(PyExc_ValueError, "%s: hb holds %zd items where %zd movers are blocked", fn, nb, want);
        goto done;
    }
    for (Py_ssize_t j = 0, i = 0; j < k; j++) {
        if (!blocked[j]) continue;
        long long r = pg[j];
        double h = hb[i++];
        double step = (h > 0 ? speed[r * s_sp] / h : 0.0) * slide[r * s_sl];
        xy[r] = hp[2 * k + j] - hp[k + j] * step;
        xy[n + r] = hp[3 * k + j] + hp[j] * step;
        seg[r * s_sg] = -1;
    }
    ret = Py_NewRef(Py_None);
done:
    loco_release(&b);
    return ret;
}

PyDoc_STRVAR(chase_step_doc,
"chase_step(m, tm, md, dist, cap, rng, radius, r_all, follow, speed, slide, blocked, xy2, hd, go) -> int\n\n"
"The chasers' step (its Python twin is locomotion._chase_step): chasers ``m`` (distinct unit\n"
"rows, int64) heading ``md`` (float64, 2 x len(m)) for their targets ``tm`` (unit rows), of\n"
"lengths ``dist`` (float64, or None: found here), step up to their ``speed`` (and ``cap``,\n"
"float64 per chaser, when not None) towards where they stop: range (``rng``) plus both radii\n"
"(twice ``r_all`` unless it is NaN) less 0.01, both radii for a unit ``follow``ing (per unit, or\n"
"None).  The ``blocked`` ones (bool per chaser) step to their ``slide`` side of the heading\n"
"instead.  Writes ``go`` (bool per chaser: whether it steps) and, when any steps, ``hd`` (float64,\n"
"2 x len(m): each one's heading) and the chasers' positions in ``xy2`` (float64, 2 x units; the\n"
"ones not stepping keep theirs).  ``rng``, ``radius``, ``speed`` and ``slide`` are per unit row\n"
"(strided or not).  Returns how many step.");

static PyObject *py_chase_step(PyObject *self, PyObject *args) {
    PyObject *m_o, *tm_o, *md_o, *dist_o, *cap_o, *rng_o, *rad_o, *fol_o, *speed_o, *slide_o, *bl_o, *xy_o, *hd_o,
        *go_o;
    double r_all;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOdOOOOOOO:chase_step", &m_o, &tm_o, &md_o, &dist_o, &cap_o, &rng_o, &rad_o,
                          &r_all, &fol_o, &speed_o, &slide_o, &bl_o, &xy_o, &hd_o, &go_o))
        return NULL;
    const char *fn = "chase_step";
    loco_bufs b = {.n = 0};
    PyObject *ret = NULL;
    double *scale = NULL;
    Py_ssize_t n, k;
    Py_ssize_t s_rn, s_ra, s_fo = 0, s_sp, s_sl; /* the per-unit columns' strides */
    const double *speed = loco_get(&b, speed_o, 'd', -1, 0, fn, "speed", &n, &s_sp);
    const long long *m = speed ? loco_get(&b, m_o, 'q', -1, 0, fn, "m", &k, NULL) : NULL;
    const long long *tm = m ? loco_get(&b, tm_o, 'q', k, 0, fn, "tm", NULL, NULL) : NULL;
    const double *md = tm ? loco_get(&b, md_o, 'd', 2 * k, 0, fn, "md", NULL, NULL) : NULL;
    const void *dist_v = NULL, *cap_v = NULL, *fol_v = NULL;
    if (md == NULL || !loco_get_opt(&b, dist_o, 'd', k, 0, fn, "dist", NULL, &dist_v) ||
        !loco_get_opt(&b, cap_o, 'd', k, 0, fn, "cap", NULL, &cap_v))
        goto done;
    const double *rng = loco_get(&b, rng_o, 'd', n, 0, fn, "rng", NULL, &s_rn);
    const double *radius = rng ? loco_get(&b, rad_o, 'd', n, 0, fn, "radius", NULL, &s_ra) : NULL;
    if (radius == NULL || !loco_get_opt(&b, fol_o, '?', n, 0, fn, "follow", &s_fo, &fol_v)) goto done;
    const double *slide = loco_get(&b, slide_o, 'd', n, 0, fn, "slide", NULL, &s_sl);
    const unsigned char *blocked = slide ? loco_get(&b, bl_o, '?', k, 0, fn, "blocked", NULL, NULL) : NULL;
    double *xy = blocked ? loco_get(&b, xy_o, 'd', 2 * n, 1, fn, "xy2", NULL, NULL) : NULL;
    double *hd = xy ? loco_get(&b, hd_o, 'd', 2 * k, 1, fn, "hd", NULL, NULL) : NULL;
    unsigned char *go = hd ? loco_get(&b, go_o, '?', k, 1, fn, "go", NULL, NULL) : NULL;
    if (go == NULL || !loco_rows_ok(m, k, n, fn, "m") || !loco_rows_ok(tm, k, n, fn, "tm")) goto done;
    const double *dist = dist_v, *cap = cap_v;
    const unsigned char *follow = fol_v;
    scale = (double *)malloc(sizeof(double) * (size_t)(k ? k : 1));
    if (scale == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const double *mdx = md, *mdy = md + k;
    Py_ssize_t n_go = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        long long r = m[j];
        double d = dist ? dist[j] : sqrt(mdx[j] * mdx[j] + mdy[j] * mdy[j]);
        /* chasers stop once in range, followers once touching */
        double rr = r_all == r_all ? r_all + r_all : radius[r * s_ra] + radius[tm[j] * s_ra];
        double stop_at = follow && follow[r * s_fo] ? rr : rng[r * s_rn] + rr - 0.01;
        double stepd = loco_min(speed[r * s_sp], loco_max(d - stop_at, 0.0));
        if (cap) stepd = loco_min(stepd, cap[j]); /* (no further than the path's next waypoint) */
        int g = stepd > 1e-9;
        go[j] = (unsigned char)g;
        n_go += g;
        scale[j] = g ? stepd / d : 0.0;
    }
    if (n_go) { /* (else nobody moves: the positions stay as they are) */
        double *x = xy, *y = xy + n;
        for (Py_ssize_t j = 0; j < k; j++) {
            long long r = m[j];
            double hx = mdx[j], hy = mdy[j];
            if (blocked[j]) { /* side-step round the blocker instead: (-slide * mdy, slide * mdx) */
                double sl = slide[r * s_sl];
                hx = -(mdy[j] * sl);
                hy = mdx[j] * sl;
            }
            hd[j] = hx;
            hd[k + j] = hy;
            x[r] = hx * scale[j] + x[r];
            y[r] = hy * scale[j] + y[r];
        }
    }
    ret = PyLong_FromSsize_t(n_go);
done:
    free(scale);
    loco_release(&b);
    return ret;
}
