/* Target resolution in one pass: the C twins of Targeting._target_rows (each unit's target row,
 * the tags looked up only where they changed) and of the pass of Targeting.resolve from _aim
 * through acquire and _engage to the vision candidates of _unseen and the units in range, in
 * sc2pool/engine/sim/systems/targeting.py.  Built on the static functions of
 * _kernels_targeting.c (tgt_aim, tgt_nearest, tgt_engage, tgt_unseen_candidate).  Included by
 * _kernels.c; tests/engine/test_kernels_tgt2.py holds each to its Python twin. */

/* ------------------------------------------------------------------ Targeting._target_rows */

/* UnitStore.rows of one tag: its row in the ascending `tag` column, or -1 (numpy's searchsorted,
 * then the found tag compared). */
static long long tgt2_row_of(kn_column tag, long long t) {
    Py_ssize_t lo = 0, hi = tag.len;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (KN_AT(long long, tag, mid) < t) lo = mid + 1;
        else hi = mid;
    }
    return lo < tag.len && KN_AT(long long, tag, lo) == t ? (long long)lo : -1;
}

PyDoc_STRVAR(target_rows_doc,
"target_rows(explicit, ttag, eng, tag, prev, fresh, cur) -> int\n\n"
"The compiled twin of the rows of Targeting._rows_of in sc2pool/engine/sim/systems/targeting.py:\n"
"into ``cur`` (int64, writable) the row of each unit's target, -1 where it is not alive: the tag\n"
"``ttag`` for a unit with an ``explicit`` order (None: no unit has one), else ``eng``, looked up in\n"
"the ascending column ``tag``.  ``prev`` (int64, 2 x n, writable) keeps the tags of the last call\n"
"and their rows: only the tags that changed are looked up, all of them when ``fresh`` (the unit\n"
"set changed since).  Returns how many units with an explicit order lost their target.");

static PyObject *py_target_rows(PyObject *self, PyObject *args) {
    PyObject *o[7];
    int fresh;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOpO:target_rows", &o[0], &o[1], &o[2], &o[3], &o[4], &fresh, &o[6]))
        return NULL;
    const char *fn = "target_rows";
    kn_bufs b = {.n = 0};
    kn_column explicit_ = {0}, ttag, eng, tag;
    Py_ssize_t n = 0, lost = -1;
    int ok = kn_col(&b, o[3], 'q', KN_ANY, KN_STRIDED, &tag, fn, "tag");
    n = ok ? tag.len : 0;
    ok = ok && (o[0] == Py_None || kn_col(&b, o[0], '?', n, KN_STRIDED, &explicit_, fn, "explicit")) &&
         kn_col(&b, o[1], 'q', n, KN_STRIDED, &ttag, fn, "ttag") &&
         kn_col(&b, o[2], 'q', n, KN_STRIDED, &eng, fn, "eng");
    long long *prev = ok ? kn_vec(&b, o[4], 'q', 2 * n, KN_WRITABLE, NULL, fn, "prev") : NULL;
    long long *cur = prev ? kn_vec(&b, o[6], 'q', n, KN_WRITABLE, NULL, fn, "cur") : NULL;
    if (cur != NULL) {
        long long *tags = prev, *rows = prev + n;
        lost = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int ordered = explicit_.p != NULL && KN_AT(unsigned char, explicit_, i);
            long long t = ordered ? KN_AT(long long, ttag, i) : KN_AT(long long, eng, i);
            if (fresh || tags[i] != t) {
                tags[i] = t;
                rows[i] = tgt2_row_of(tag, t);
            }
            cur[i] = rows[i];
            lost += ordered && rows[i] < 0;
        }
    }
    kn_release(&b);
    return lost < 0 ? NULL : PyLong_FromSsize_t(lost);
}

/* ------------------------------------------------------------------ Targeting.resolve's pass */

/* numpy's maximum of two floats: NaN when either is. */
static inline double tgt2_maximum(double a, double b) {
    if (a != a || b != b) return a != a ? a : b;
    return a >= b ? a : b;
}

PyDoc_STRVAR(resolve_pass_doc,
"resolve_pass(xy, cur, radius, r_all, rng, can_attack, auto_kind, explicit, unheld, follow, eng, scan,\n"
"             loop, ti, owner, kind, hold, sight, cols, common, can_hit, speed, max_speed, tag, level,\n"
"             w, h, ground, dde, ts, flags) -> int\n\n"
"The compiled twin of the pass of sc2pool.engine.sim.systems.targeting.Targeting.resolve from\n"
"_aim (``cur``: each unit's target row or -1, written in place as its ``tsafe``; ``explicit``,\n"
"``unheld``: None as _aim's) through acquire (the nearest hittable hostile of ``cols``, ascending, by\n"
"``can_hit``, bool types x types, and ``common`` as in nearest_hostile; the acquisition range is\n"
"``rng`` for a unit of ``kind`` ``hold``, else the larger of ``sight`` and ``rng``) and _engage\n"
"(``speed``, ``max_speed``, ``tag``; ``eng`` and ``scan`` written in place).  Into ``dde``\n"
"(float64, 3 x n) go dx, dy and d_edge, into ``ts`` (int64, 2 x n) the targets and, unless ``level``\n"
"is None, the rows _unseen_candidates finds (``level``: the h x w int8 grid, ``ground``), into\n"
"``flags`` (bool, 2 x n) who has a target and who has it in range (never a unit that ``follow``s;\n"
"None: nobody does).  Returns how many candidates it found.  ``xy`` holds the units' x then their y,\n"
"the other arrays one item per unit; a NaN acquisition gap of a unit that found nothing is a\n"
"ValueError.");

static PyObject *py_resolve_pass(PyObject *self, PyObject *args) {
    PyObject *o[31];
    double r_all, common, max_speed;
    long long loop, hold;
    Py_ssize_t w, h;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOdOOOOOOOOLOOOLOOdOOdOOnnOOOO:resolve_pass", &o[0], &o[1], &o[2], &r_all, &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &loop, &o[13], &o[14], &o[15], &hold,
                          &o[17], &o[18], &common, &o[20], &o[21], &max_speed, &o[23], &o[24], &w, &h, &o[27],
                          &o[28], &o[29], &o[30]))
        return NULL;
    const char *fn = "resolve_pass";
    int vision = o[24] != Py_None;
    if (vision && (w <= 0 || h <= 0)) {
        PyErr_SetString(PyExc_ValueError, "resolve_pass: the grid's width and height must be positive");
        return NULL;
    }
    kn_bufs b = {.n = 0};
    Py_ssize_t n = 0, k = -1;
    kn_column radius, rng, can_attack, auto_kind, explicit_, unheld, follow = {0}, eng, scan, ti, owner, kind, sight,
        cols, speed, tag, ground = {0};
    long long *cur = kn_vec(&b, o[1], 'q', KN_ANY, KN_WRITABLE, &n, fn, "cur");
    const double *x = cur ? kn_vec(&b, o[0], 'd', 2 * n, KN_CONTIG, NULL, fn, "xy") : NULL;
    int ok = x != NULL && kn_col(&b, o[2], 'd', n, KN_STRIDED, &radius, fn, "radius") &&
             kn_col(&b, o[4], 'd', n, KN_STRIDED, &rng, fn, "rng") &&
             kn_col(&b, o[5], '?', n, KN_STRIDED, &can_attack, fn, "can_attack") &&
             kn_col(&b, o[6], '?', n, KN_STRIDED, &auto_kind, fn, "auto_kind") &&
             (o[7] == Py_None || kn_col(&b, o[7], '?', n, KN_STRIDED, &explicit_, fn, "explicit")) &&
             (o[8] == Py_None || kn_col(&b, o[8], '?', n, KN_STRIDED, &unheld, fn, "unheld")) &&
             (o[9] == Py_None || kn_col(&b, o[9], '?', n, KN_STRIDED, &follow, fn, "follow")) &&
             kn_col(&b, o[10], 'q', n, KN_STRIDED | KN_WRITABLE, &eng, fn, "eng") &&
             kn_col(&b, o[11], 'q', n, KN_STRIDED | KN_WRITABLE, &scan, fn, "scan") &&
             kn_col(&b, o[13], 'q', n, KN_STRIDED, &ti, fn, "ti") &&
             kn_col(&b, o[14], 'q', n, KN_STRIDED, &owner, fn, "owner") &&
             kn_col(&b, o[15], 'q', n, KN_STRIDED, &kind, fn, "kind") &&
             kn_col(&b, o[17], 'd', n, KN_STRIDED, &sight, fn, "sight") &&
             kn_col(&b, o[18], 'q', KN_ANY, KN_STRIDED, &cols, fn, "cols") &&
             kn_col(&b, o[21], 'd', n, KN_STRIDED, &speed, fn, "speed") &&
             kn_col(&b, o[23], 'q', n, KN_STRIDED, &tag, fn, "tag") &&
             (!vision || kn_col(&b, o[27], '?', n, KN_STRIDED, &ground, fn, "ground"));
    const Py_buffer *hit = ok ? kn_borrow(&b, o[20], '?', KN_ANY, KN_CONTIG, NULL, fn, "can_hit") : NULL;
    if (hit != NULL && (hit->ndim != 2 || hit->shape[1] != hit->shape[0])) {
        PyErr_SetString(PyExc_ValueError, "resolve_pass: can_hit must be a square table");
        hit = NULL;
    }
    const signed char *level = NULL;
    if (hit != NULL && vision) level = kn_vec(&b, o[24], 'b', w * h, KN_CONTIG, NULL, fn, "level");
    double *dde = hit != NULL && (level != NULL || !vision) ? kn_vec(&b, o[28], 'd', 3 * n, KN_WRITABLE, NULL, fn, "dde")
                                                           : NULL;
    long long *ts = dde ? kn_vec(&b, o[29], 'q', 2 * n, KN_WRITABLE, NULL, fn, "ts") : NULL;
    unsigned char *flags = ts ? kn_vec(&b, o[30], '?', 2 * n, KN_WRITABLE, NULL, fn, "flags") : NULL;
    ok = flags != NULL && tgt_cols_ok(cols, ti, n, hit->shape[0], fn);
    if (ok) {
        tgt_hostiles hs = {KN_FLAT(x, n), KN_FLAT(x + n, n), radius, ti, owner, cols, hit->buf, hit->shape[0], common};
        double *dx = dde, *dy = dde + n, *d_edge = dde + 2 * n;
        long long *tgt = ts, *rows = ts + n; /* (rows: first the lookers, then the candidates) */
        Py_ssize_t looking = tgt_aim(n, x, x + n, cur, radius, r_all, rng, can_attack, auto_kind,
                                     o[7] == Py_None ? NULL : &explicit_, o[8] == Py_None ? NULL : &unheld, eng, scan,
                                     loop, dx, dy, d_edge, tgt, rows);
        tgt_engaged e = {x, x + n, radius, speed, tag, eng, scan, KN_FLAT(tgt, n), KN_FLAT(cur, n), KN_FLAT(dx, n),
                         KN_FLAT(dy, n), KN_FLAT(d_edge, n), max_speed, loop};
        ok = looking >= 0;
        for (Py_ssize_t j = 0; ok && j < looking; j++) { /* (acquire: each looker's nearest, if within range) */
            long long r = rows[j], t = KN_AT(long long, ti, r);
            if (t < 0 || t >= hs.types) {
                PyErr_Format(PyExc_ValueError, "%s: unit %lld is of no known type", fn, r);
                ok = 0;
                break;
            }
            double dist, rg = KN_AT(double, rng, r);
            long long best = tgt_nearest(&hs, r, &dist);
            double gap = dist - (KN_AT(long long, kind, r) == hold ? rg : tgt2_maximum(KN_AT(double, sight, r), rg));
            long long found = gap <= 0 ? best : -1;
            if (found < 0 && gap != gap) {
                PyErr_Format(PyExc_ValueError, "%s: the acquisition gap of unit %lld is NaN", fn, r);
                ok = 0;
                break;
            }
            tgt_engage(&e, r, found, gap);
        }
        k = 0;
        for (Py_ssize_t i = 0; ok && vision && i < n; i++) { /* (tgt: -1 or a row; see tgt_aim, tgt_engage) */
            if (tgt[i] < 0) continue;
            int far = tgt_unseen_candidate(x, x + n, i, tgt[i], dx[i], dy[i], KN_AT(double, sight, i),
                                           KN_AT(unsigned char, ground, i), level, w, h, fn);
            if (far < 0) ok = 0;
            else if (far) rows[k++] = i;
        }
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            int has_t = tgt[i] >= 0;
            flags[i] = (unsigned char)has_t;
            flags[n + i] = (unsigned char)(d_edge[i] <= KN_AT(double, rng, i) && has_t &&
                                           !(follow.p != NULL && KN_AT(unsigned char, follow, i)));
        }
    }
    kn_release(&b);
    return ok ? PyLong_FromSsize_t(k) : NULL;
}
