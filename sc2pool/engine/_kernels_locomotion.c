/* Locomotion's kernels (included by _kernels.c): C twins of the per-walker arithmetic of
 * sc2pool/engine/sim/systems/locomotion.py, which runs every game loop for every walker.
 *
 * They take the unit store's columns as they are (one contiguous row of the float or int block
 * each, strided where the block is not row-major: kn_col) and write the results in place, as the
 * numpy code does; arctan2 and hypot stay in numpy (the callers compute the headings from what
 * these return, and pass in the lengths).
 */

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
    kn_bufs b;
    b.n = 0;
    long *pos = NULL;
    long *pull = NULL;
    PyObject *ret = NULL;
    Py_ssize_t n, k, p2;
    kn_column slide, walking, kind, eng, owner; /* per unit row */
    if (!kn_col(&b, slide_o, 'd', KN_ANY, KN_STRIDED | KN_WRITABLE, &slide, fn, "slide")) goto done;
    n = slide.len;
    const long long *m = kn_vec(&b, m_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    const double *hxy = m ? kn_vec(&b, hxy_o, 'd', 2 * k, KN_CONTIG, NULL, fn, "hxy") : NULL;
    const long long *rows2 = hxy ? kn_vec(&b, rows2_o, 'q', KN_ANY, KN_CONTIG, &p2, fn, "rows2") : NULL;
    if (rows2 == NULL) goto done;
    if (p2 % 2) {
        PyErr_Format(PyExc_ValueError, "%s: rows2 must hold two rows (it holds %zd items)", fn, p2);
        goto done;
    }
    Py_ssize_t np_ = p2 / 2;
    const double *vec = kn_vec(&b, vec_o, 'd', 3 * np_, KN_CONTIG, NULL, fn, "vec");
    if (vec == NULL || !kn_col(&b, walking_o, '?', n, KN_STRIDED, &walking, fn, "walking") ||
        !kn_col(&b, kind_o, 'q', n, KN_STRIDED, &kind, fn, "kind") ||
        !kn_col(&b, eng_o, 'q', n, KN_STRIDED, &eng, fn, "eng") ||
        !kn_col(&b, owner_o, 'q', n, KN_STRIDED, &owner, fn, "owner"))
        goto done;
    unsigned char *out = kn_vec(&b, out_o, '?', k, KN_WRITABLE, NULL, fn, "out");
    if (out == NULL || !kn_rows_ok(m, k, n, fn, "m") || !kn_rows_ok(rows2, p2, n, fn, "rows2")) goto done;
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
        int firm = KN_AT(double, slide, o) != 0.0 || !KN_AT(unsigned char, walking, o);
        /* an idle ally makes way for a mover to a point */
        if (firm && n_yield && i < n_yield && KN_AT(long long, kind, o) == idle_kind &&
            KN_AT(long long, eng, o) == 0 && KN_AT(long long, owner, src[q]) == KN_AT(long long, owner, o))
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
        double *sl = &KN_AT(double, slide, m[j]);
        if (out[j] && *sl == 0.0) *sl = pull[j] >= 0 ? 1.0 : -1.0;
    }
    ret = Py_NewRef(Py_None);
done:
    free(pos);
    free(pull);
    kn_release(&b);
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
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n, k, nf;
    kn_column seg, speed; /* per unit row */
    if (!kn_col(&b, seg_o, 'q', KN_ANY, KN_STRIDED | KN_WRITABLE, &seg, fn, "seg")) goto done;
    n = seg.len;
    const long long *m = kn_vec(&b, m_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    double *F = m ? kn_vec(&b, f_o, 'd', KN_ANY, KN_WRITABLE, &nf, fn, "F") : NULL;
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
    if (!kn_col(&b, speed_o, 'd', n, KN_STRIDED, &speed, fn, "speed")) goto done;
    double *dd = kn_vec(&b, dd_o, 'd', 3 * k, KN_WRITABLE, NULL, fn, "dd");
    unsigned char *flags = dd ? kn_vec(&b, flags_o, '?', 2 * k, KN_WRITABLE, NULL, fn, "flags") : NULL;
    if (flags == NULL || !kn_rows_ok(m, k, n, fn, "m")) goto done;
    double *x = F + x_row * n, *y = x + n, *ox = F + o_row * n, *oy = ox + n;
    const double *tx = F + t_row * n, *ty = tx + n;
    int moved = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        long long r = m[j], s = KN_AT(long long, seg, r);
        if (s < 0) { /* a segment not yet started starts here and now */
            ox[r] = x[r];
            oy[r] = y[r];
            KN_AT(long long, seg, r) = s = start;
        }
        double dx = tx[r] - ox[r], dy = ty[r] - oy[r];
        double length = sqrt(dx * dx + dy * dy);
        double travel = (double)(loop - s) * KN_AT(double, speed, r);
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
    kn_release(&b);
    return ret;
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
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n, nk;
    kn_column kind, has_t, in_range, speed, seg, slide; /* per unit row */
    if (!kn_col(&b, kind_o, 'q', KN_ANY, KN_STRIDED, &kind, fn, "kind")) goto done;
    n = kind.len;
    const unsigned char *pk = kn_vec(&b, pk_o, '?', KN_ANY, KN_CONTIG, &nk, fn, "point_kinds");
    if (pk == NULL || !kn_col(&b, has_o, '?', n, KN_STRIDED, &has_t, fn, "has_t") ||
        !kn_col(&b, inr_o, '?', n, KN_STRIDED, &in_range, fn, "in_range") ||
        !kn_col(&b, speed_o, 'd', n, KN_STRIDED, &speed, fn, "speed") ||
        !kn_col(&b, seg_o, 'q', n, KN_STRIDED | KN_WRITABLE, &seg, fn, "seg") ||
        !kn_col(&b, slide_o, 'd', n, KN_STRIDED | KN_WRITABLE, &slide, fn, "slide"))
        goto done;
    unsigned char *masks = kn_vec(&b, masks_o, '?', 4 * n, KN_WRITABLE, NULL, fn, "masks");
    long long *rows = masks ? kn_vec(&b, rows_o, 'q', n, KN_WRITABLE, NULL, fn, "rows") : NULL;
    if (rows == NULL || !kn_in_range(kind, nk, fn, "kind")) goto done;
    unsigned char *point_goal = masks, *chase = masks + n, *walking = masks + 2 * n, *mobile = masks + 3 * n;
    Py_ssize_t n_pg = 0, n_ch = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        long long k = KN_AT(long long, kind, r);
        int mob = KN_AT(double, speed, r) > 0, has = KN_AT(unsigned char, has_t, r) != 0;
        int pg = pk[k] && !has && mob;
        int ch = has && !KN_AT(unsigned char, in_range, r) && k != hold && mob;
        point_goal[r] = (unsigned char)pg;
        chase[r] = (unsigned char)ch;
        walking[r] = (unsigned char)(pg || ch);
        mobile[r] = (unsigned char)mob;
        /* a straight move to a point restarts from wherever it resumes; going round a blocker
         * lasts while the walk does */
        if (!pg) KN_AT(long long, seg, r) = -1;
        if (!(pg || ch)) KN_AT(double, slide, r) = 0.0;
        if (pg) rows[n_pg++] = r;
        n_ch += ch;
    }
    for (Py_ssize_t r = 0, j = n_pg; r < n; r++)
        if (chase[r]) rows[j++] = r;
    ret = Py_BuildValue("(nn)", n_pg, n_ch);
done:
    kn_release(&b);
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
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n, k, nf, nk;
    kn_column kind, tsafe, rng, radius, wp = {0}, follow = {0}; /* per unit row (wp, follow: maybe none) */
    if (!kn_col(&b, kind_o, 'q', KN_ANY, KN_STRIDED, &kind, fn, "kind")) goto done;
    n = kind.len;
    const long long *rows = kn_vec(&b, rows_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "rows");
    if (rows == NULL) goto done;
    if (n_pg < 0 || n_pg > k) {
        PyErr_Format(PyExc_ValueError, "%s: n_pg = %zd is not a count of rows (there are %zd)", fn, n_pg, k);
        goto done;
    }
    Py_ssize_t n_ch = k - n_pg;
    const double *F = kn_vec(&b, f_o, 'd', KN_ANY, KN_CONTIG, &nf, fn, "F");
    if (F == NULL) goto done;
    if (steer < 0 || (steer + 2) * n > nf) {
        PyErr_Format(PyExc_ValueError, "%s: steer = %zd is not a row of F (holding %zd items for %zd units)", fn,
                     steer, nf, n);
        goto done;
    }
    const double *xy = kn_vec(&b, xy_o, 'd', 2 * n, KN_CONTIG, NULL, fn, "xy2");
    if (xy == NULL || !kn_col(&b, ts_o, 'q', n, KN_STRIDED, &tsafe, fn, "tsafe")) goto done;
    const unsigned char *pk = kn_vec(&b, pk_o, '?', KN_ANY, KN_CONTIG, &nk, fn, "point_kinds");
    if (pk == NULL || (wp_o != Py_None && !kn_col(&b, wp_o, 'q', n, KN_STRIDED | KN_WRITABLE, &wp, fn, "wp")) ||
        !kn_col(&b, rng_o, 'd', n, KN_STRIDED, &rng, fn, "rng") ||
        !kn_col(&b, rad_o, 'd', n, KN_STRIDED, &radius, fn, "radius") ||
        (fol_o != Py_None && !kn_col(&b, fol_o, '?', n, KN_STRIDED, &follow, fn, "follow")))
        goto done;
    double *hp = kn_vec(&b, hp_o, 'd', 4 * n_pg, KN_WRITABLE, NULL, fn, "hp");
    double *md = hp ? kn_vec(&b, md_o, 'd', 2 * n_ch, KN_WRITABLE, NULL, fn, "md") : NULL;
    long long *tm = md ? kn_vec(&b, tm_o, 'q', n_ch, KN_WRITABLE, NULL, fn, "tm") : NULL;
    void *st_v;
    if (tm == NULL || !kn_vec_opt(&b, st_o, 'd', n_ch, KN_WRITABLE, fn, "stop_t", &st_v)) goto done;
    if (!kn_rows_ok(rows, k, n, fn, "rows")) goto done;
    double *stop_t = st_v;
    const long long *m = rows + n_pg;
    for (Py_ssize_t i = 0; i < n_ch; i++) {
        long long t = KN_AT(long long, tsafe, m[i]);
        if (t < 0 || t >= n) {
            PyErr_Format(PyExc_ValueError, "%s: tsafe[%lld] = %lld is not a unit row (there are %zd)", fn, m[i], t, n);
            goto done;
        }
    }
    for (Py_ssize_t i = 0; wp.p != NULL && i < n_ch; i++) { /* (the chasers' kinds index point_kinds) */
        long long kd = KN_AT(long long, kind, m[i]);
        if (kd < 0 || kd >= nk) {
            PyErr_Format(PyExc_ValueError, "%s: kind[%lld] = %lld lies outside [0, %zd)", fn, m[i], kd, nk);
            goto done;
        }
    }
    const double *x = xy, *y = xy + n, *sx = F + steer * n, *sy = sx + n;
    for (Py_ssize_t j = 0; j < n_pg; j++) {
        long long r = rows[j];
        hp[j] = sx[r] - x[r];
        hp[n_pg + j] = sy[r] - y[r];
        hp[2 * n_pg + j] = x[r];
        hp[3 * n_pg + j] = y[r];
    }
    for (Py_ssize_t i = 0; i < n_ch; i++) {
        long long r = m[i], t = KN_AT(long long, tsafe, r);
        tm[i] = t;
        md[i] = x[t] - x[r];
        md[n_ch + i] = y[t] - y[r];
        if (wp.p && pk[KN_AT(long long, kind, r)] && KN_AT(long long, wp, r) >= 0) KN_AT(long long, wp, r) = -1;
        if (stop_t) {
            double r_m = KN_AT(double, radius, r), r_t = KN_AT(double, radius, t);
            stop_t[i] = follow.p && KN_AT(unsigned char, follow, r) ? r_m + r_t
                                                                    : KN_AT(double, rng, r) + r_m + r_t - 0.01;
        }
    }
    ret = Py_NewRef(Py_None);
done:
    kn_release(&b);
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
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    Py_ssize_t n, k, nb;
    kn_column seg, speed, slide; /* per unit row */
    if (!kn_col(&b, seg_o, 'q', KN_ANY, KN_STRIDED | KN_WRITABLE, &seg, fn, "seg")) goto done;
    n = seg.len;
    const long long *pg = kn_vec(&b, pg_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "pg");
    const unsigned char *blocked = pg ? kn_vec(&b, bl_o, '?', k, KN_CONTIG, NULL, fn, "blocked") : NULL;
    const double *hp = blocked ? kn_vec(&b, hp_o, 'd', 4 * k, KN_CONTIG, NULL, fn, "hp") : NULL;
    const double *hb = hp ? kn_vec(&b, hb_o, 'd', KN_ANY, KN_CONTIG, &nb, fn, "hb") : NULL;
    if (hb == NULL || !kn_col(&b, speed_o, 'd', n, KN_STRIDED, &speed, fn, "speed") ||
        !kn_col(&b, slide_o, 'd', n, KN_STRIDED, &slide, fn, "slide"))
        goto done;
    double *xy = kn_vec(&b, xy_o, 'd', 2 * n, KN_WRITABLE, NULL, fn, "xy2");
    if (xy == NULL || !kn_rows_ok(pg, k, n, fn, "pg")) goto done;
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
        double step = (h > 0 ? KN_AT(double, speed, r) / h : 0.0) * KN_AT(double, slide, r);
        xy[r] = hp[2 * k + j] - hp[k + j] * step;
        xy[n + r] = hp[3 * k + j] + hp[j] * step;
        KN_AT(long long, seg, r) = -1;
    }
    ret = Py_NewRef(Py_None);
done:
    kn_release(&b);
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
    kn_bufs b;
    b.n = 0;
    PyObject *ret = NULL;
    double *scale = NULL;
    Py_ssize_t n, k;
    kn_column speed, rng, radius, slide, follow = {0}; /* per unit row (follow: maybe none) */
    if (!kn_col(&b, speed_o, 'd', KN_ANY, KN_STRIDED, &speed, fn, "speed")) goto done;
    n = speed.len;
    const long long *m = kn_vec(&b, m_o, 'q', KN_ANY, KN_CONTIG, &k, fn, "m");
    const long long *tm = m ? kn_vec(&b, tm_o, 'q', k, KN_CONTIG, NULL, fn, "tm") : NULL;
    const double *md = tm ? kn_vec(&b, md_o, 'd', 2 * k, KN_CONTIG, NULL, fn, "md") : NULL;
    void *dist_v, *cap_v;
    if (md == NULL || !kn_vec_opt(&b, dist_o, 'd', k, KN_CONTIG, fn, "dist", &dist_v) ||
        !kn_vec_opt(&b, cap_o, 'd', k, KN_CONTIG, fn, "cap", &cap_v) ||
        !kn_col(&b, rng_o, 'd', n, KN_STRIDED, &rng, fn, "rng") ||
        !kn_col(&b, rad_o, 'd', n, KN_STRIDED, &radius, fn, "radius") ||
        (fol_o != Py_None && !kn_col(&b, fol_o, '?', n, KN_STRIDED, &follow, fn, "follow")) ||
        !kn_col(&b, slide_o, 'd', n, KN_STRIDED, &slide, fn, "slide"))
        goto done;
    const unsigned char *blocked = kn_vec(&b, bl_o, '?', k, KN_CONTIG, NULL, fn, "blocked");
    double *xy = blocked ? kn_vec(&b, xy_o, 'd', 2 * n, KN_WRITABLE, NULL, fn, "xy2") : NULL;
    double *hd = xy ? kn_vec(&b, hd_o, 'd', 2 * k, KN_WRITABLE, NULL, fn, "hd") : NULL;
    unsigned char *go = hd ? kn_vec(&b, go_o, '?', k, KN_WRITABLE, NULL, fn, "go") : NULL;
    if (go == NULL || !kn_rows_ok(m, k, n, fn, "m") || !kn_rows_ok(tm, k, n, fn, "tm")) goto done;
    const double *dist = dist_v, *cap = cap_v;
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
        double rr = r_all == r_all ? r_all + r_all : KN_AT(double, radius, r) + KN_AT(double, radius, tm[j]);
        double stop_at = follow.p && KN_AT(unsigned char, follow, r) ? rr : KN_AT(double, rng, r) + rr - 0.01;
        double stepd = loco_min(KN_AT(double, speed, r), loco_max(d - stop_at, 0.0));
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
                double sl = KN_AT(double, slide, r);
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
    kn_release(&b);
    return ret;
}
