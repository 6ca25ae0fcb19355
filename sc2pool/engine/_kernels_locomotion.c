/* Locomotion's kernels (included by _kernels.c): C twins of the per-walker arithmetic of
 * sc2pool/engine/sim/systems/locomotion.py, which runs every game loop for every walker.
 *
 * They take the unit store's columns as they are (one contiguous row of the float or int block
 * each) and write the results in place, as the numpy code does; arctan2 stays in numpy (the
 * callers compute the headings from what these return).
 */

#define LOCO_MAX_BUFS 12 /* buffers one kernel call borrows at most */

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
