/* Heals, weapons coming ready and burning structures: C twins of the per-unit passes of
 * sc2pool/engine/sim/systems/abilities.py (_heals: the Medivacs' heals), combat.py (_ready: the
 * cooldowns counting down at the start of Combat.fire) and repair.py (_burning: the Terran
 * structures below a third of their life).  Included by _kernels.c;
 * tests/engine/test_kernels_combat.py holds each to its Python twin. */

/* ------------------------------------------------------------------ Abilities._heal */

PyDoc_STRVAR(heal_hurt_doc,
"heal_hurt(hp, rows, tops, x, y, medivacs, idx, dxy) -> int\n\n"
"The first half of the compiled twin of sc2pool.engine.sim.systems.abilities._heals: the units\n"
"of ``rows`` (int64) alive and below their maximum life ``tops`` (float64, one per row), in\n"
"order: their rows into ``idx[:c]`` and their indices in ``rows`` into ``idx[c:2 * c]``, and each\n"
"Medivac's (row of ``medivacs``, int64) offsets to them, Medivac by Medivac, x into\n"
"``dxy[:m * c]`` and y into ``dxy[m * c:2 * m * c]``; returns c, the number of hurt units.  ``hp``,\n"
"``x``, ``y`` are float64 columns, one item per unit; ``idx`` (int64) and ``dxy`` (float64) are\n"
"writable and C-contiguous, of at least 2 * len(rows) and 2 * m * len(rows) items.");

static PyObject *py_heal_hurt(PyObject *self, PyObject *args) {
    PyObject *o[8];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:heal_hurt", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7]))
        return NULL;
    const char *fn = "heal_hurt";
    kn_bufs b;
    b.n = 0;
    Py_ssize_t c = -1;
    kn_column hp, rows, tops, x, y, med, idx_c, dxy_c;
    int ok = kn_col(&b, o[0], 'd', KN_ANY, KN_STRIDED, &hp, fn, "hp") &&
             kn_col(&b, o[1], 'q', KN_ANY, KN_STRIDED, &rows, fn, "rows") &&
             kn_col(&b, o[2], 'd', rows.len, KN_STRIDED, &tops, fn, "tops") &&
             kn_col(&b, o[3], 'd', hp.len, KN_STRIDED, &x, fn, "x") &&
             kn_col(&b, o[4], 'd', hp.len, KN_STRIDED, &y, fn, "y") &&
             kn_col(&b, o[5], 'q', KN_ANY, KN_STRIDED, &med, fn, "medivacs") &&
             kn_col(&b, o[6], 'q', -2 * rows.len - 1, KN_WRITABLE, &idx_c, fn, "idx") &&
             kn_col(&b, o[7], 'd', -2 * med.len * rows.len - 1, KN_WRITABLE, &dxy_c, fn, "dxy") &&
             kn_in_range(rows, hp.len, fn, "rows") && kn_in_range(med, hp.len, fn, "medivacs");
    if (ok) {
        Py_ssize_t r = rows.len, m = med.len;
        long long *idx = (long long *)idx_c.p;
        double *dxy = (double *)dxy_c.p;
        c = 0;
        for (Py_ssize_t i = 0; i < r; i++) { /* (hp < tops, then hp > 0: a NaN life is neither) */
            long long row = KN_AT(long long, rows, i);
            double h = KN_AT(double, hp, row);
            if (h < KN_AT(double, tops, i) && h > 0) {
                idx[c] = row;
                idx[r + c] = i;
                c++;
            }
        }
        memmove(idx + c, idx + r, sizeof(long long) * (size_t)c);
        double *dx = dxy, *dy = dxy + m * c;
        for (Py_ssize_t i = 0; i < m; i++) {
            long long mr = KN_AT(long long, med, i);
            double mx = KN_AT(double, x, mr), my = KN_AT(double, y, mr);
            for (Py_ssize_t j = 0; j < c; j++) {
                dx[i * c + j] = KN_AT(double, x, idx[j]) - mx;
                dy[i * c + j] = KN_AT(double, y, idx[j]) - my;
            }
        }
    }
    kn_release(&b);
    return ok ? PyLong_FromSsize_t(c) : NULL;
}

PyDoc_STRVAR(heal_apply_doc,
"heal_apply(dist, idx, c, tops, radius, owner, medivacs, energies, most, per_energy, reach, hp)\n"
"    -> list[tuple[int, float]]\n\n"
"The second half of the compiled twin of sc2pool.engine.sim.systems.abilities._heals: with\n"
"``idx`` as heal_hurt left it (``c`` hurt units) and ``dist`` (float64, m * c, C-contiguous) the\n"
"centre distances from each Medivac to them, each Medivac with energy (``energies``, a sequence\n"
"of m floats) heals the nearest hurt unit of its owner (edge distance, the first of equals) within\n"
"``reach``, Medivac by Medivac: by ``most``, what its life lacks or ``per_energy`` per energy point,\n"
"whichever is least, into ``hp`` (writable).  Returns (index of the Medivac, its energy left) per\n"
"heal done.");

static PyObject *py_heal_apply(PyObject *self, PyObject *args) {
    PyObject *o[12];
    Py_ssize_t c;
    double most, per_energy, reach;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnOOOOOdddO:heal_apply", &o[0], &o[1], &c, &o[3], &o[4], &o[5], &o[6], &o[7],
                          &most, &per_energy, &reach, &o[11]))
        return NULL;
    const char *fn = "heal_apply";
    if (c < 1) {
        PyErr_Format(PyExc_ValueError, "%s: c must be at least 1 (a hurt unit)", fn);
        return NULL;
    }
    PyObject *en = PySequence_Fast(o[7], "");
    if (en == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: energies must be a sequence of floats", fn);
        return NULL;
    }
    kn_bufs b;
    b.n = 0;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(en);
    kn_column dist, idx_c, tops, radius, owner, med, hp;
    PyObject *out = NULL;
    int ok = kn_col(&b, o[11], 'd', KN_ANY, KN_STRIDED | KN_WRITABLE, &hp, fn, "hp") &&
             kn_col(&b, o[6], 'q', m, KN_STRIDED, &med, fn, "medivacs") &&
             kn_col(&b, o[0], 'd', m * c, KN_CONTIG, &dist, fn, "dist") &&
             kn_col(&b, o[1], 'q', -2 * c - 1, KN_CONTIG, &idx_c, fn, "idx") &&
             kn_col(&b, o[3], 'd', KN_ANY, KN_STRIDED, &tops, fn, "tops") &&
             kn_col(&b, o[4], 'd', hp.len, KN_STRIDED, &radius, fn, "radius") &&
             kn_col(&b, o[5], 'q', hp.len, KN_STRIDED, &owner, fn, "owner") &&
             kn_in_range(med, hp.len, fn, "medivacs");
    Py_ssize_t n = ok ? hp.len : 0, r = ok ? tops.len : 0;
    const long long *idx = ok ? (const long long *)idx_c.p : NULL;
    for (Py_ssize_t j = 0; ok && j < c; j++) {
        if (idx[j] < 0 || idx[j] >= n || idx[c + j] < 0 || idx[c + j] >= r) {
            PyErr_Format(PyExc_ValueError, "%s: idx[%zd] or idx[%zd] is no hurt unit's row or index", fn, j, c + j);
            ok = 0;
        }
    }
    if (ok) out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < m; i++) {
        double e = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(en, i));
        if (e == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: energies[%zd] is no float", fn, i);
            Py_CLEAR(out);
            break;
        }
        long long mr = KN_AT(long long, med, i);
        double r_m = KN_AT(double, radius, mr);
        long long own = KN_AT(long long, owner, mr);
        /* numpy's argmin and min of the row: the first least distance, or the first NaN */
        const double *row = (const double *)dist.p + i * c;
        Py_ssize_t near = 0;
        double best = 0.0;
        for (Py_ssize_t j = 0; j < c; j++) {
            double d = KN_AT(long long, owner, idx[j]) != own ? INFINITY
                                                               : row[j] - KN_AT(double, radius, idx[j]) - r_m;
            if (d != d) {
                near = j;
                best = d;
                break;
            }
            if (j == 0 || d < best) {
                near = j;
                best = d;
            }
        }
        if (e <= 0.0 || best > reach) continue;
        long long t = idx[near];
        double *h = &KN_AT(double, hp, t);
        /* Python's min(most, top - life, energy * per_energy): the first of the least */
        double amount = most, lack = KN_AT(double, tops, idx[c + near]) - *h, afford = e * per_energy;
        if (lack < amount) amount = lack;
        if (afford < amount) amount = afford;
        if (amount <= 0) continue;
        *h = *h + amount;
        PyObject *item = Py_BuildValue("(nd)", i, e - amount / per_energy);
        if (item == NULL || PyList_Append(out, item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
    }
    kn_release(&b);
    Py_DECREF(en);
    return out;
}

/* ------------------------------------------------------------------ Combat.fire */

PyDoc_STRVAR(fire_ready_doc,
"fire_ready(cd, in_range, kind, explode_kind, suicide, masks, cdn) -> None\n\n"
"The compiled twin of sc2pool.engine.sim.systems.combat._ready: every weapon's cooldown ``cd``\n"
"(float64, written in place) counts down a loop; into the rows of ``masks`` (bool, 4 x n,\n"
"C-contiguous) go who fires (in range and ready; a suicide attacker blasts instead when anyone\n"
"blasts), who was ordered to explode (``kind`` == ``explode_kind``), who blasts and whose weapon\n"
"was cooling, and into ``cdn`` (float64, n) the cooldowns less a loop.  ``suicide``: per unit,\n"
"or None when no unit is a suicide attacker.");

static PyObject *py_fire_ready(PyObject *self, PyObject *args) {
    PyObject *o[7];
    long long explode_kind;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLOOO:fire_ready", &o[0], &o[1], &o[2], &explode_kind, &o[4], &o[5], &o[6]))
        return NULL;
    const char *fn = "fire_ready";
    kn_bufs b;
    b.n = 0;
    kn_column cd, in_range, kind, suicide = {0}, cdn_c;
    int has_suicide = o[4] != Py_None;
    int ok = kn_col(&b, o[0], 'd', KN_ANY, KN_STRIDED | KN_WRITABLE, &cd, fn, "cd") &&
             kn_col(&b, o[1], '?', cd.len, KN_STRIDED, &in_range, fn, "in_range") &&
             kn_col(&b, o[2], 'q', cd.len, KN_STRIDED, &kind, fn, "kind") &&
             (!has_suicide || kn_col(&b, o[4], '?', cd.len, KN_STRIDED, &suicide, fn, "suicide")) &&
             kn_col(&b, o[6], 'd', cd.len, KN_WRITABLE, &cdn_c, fn, "cdn");
    Py_ssize_t n = ok ? cd.len : 0;
    const Py_buffer *masks = ok ? kn_borrow(&b, o[5], '?', 4 * n, KN_WRITABLE, NULL, fn, "masks") : NULL;
    if (masks != NULL && (masks->ndim != 2 || masks->shape[0] != 4)) {
        PyErr_Format(PyExc_ValueError, "%s: masks must be 4 x %zd", fn, n);
        masks = NULL;
    }
    ok = ok && masks != NULL;
    if (ok) {
        unsigned char *fire = (unsigned char *)masks->buf, *explode = fire + n, *blast = explode + n,
                      *cooling = blast + n;
        double *cdn = (double *)cdn_c.p;
        Py_ssize_t n_blast = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            double was = KN_AT(double, cd, i), less = was - 1.0;
            int f = KN_AT(unsigned char, in_range, i) && less <= 0.0;
            int ex = KN_AT(long long, kind, i) == explode_kind;
            int bl = ex || (has_suicide && f && KN_AT(unsigned char, suicide, i));
            cooling[i] = was > 0.0;
            cdn[i] = less;
            KN_AT(double, cd, i) = less >= 0.0 || less != less ? less : 0.0; /* numpy's maximum */
            fire[i] = (unsigned char)f;
            explode[i] = (unsigned char)ex;
            blast[i] = (unsigned char)bl;
            n_blast += bl;
        }
        if (n_blast && has_suicide) /* (a suicide attacker that fired blasts instead) */
            for (Py_ssize_t i = 0; i < n; i++)
                fire[i] = fire[i] && !KN_AT(unsigned char, suicide, i);
    }
    kn_release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ Repair._burn_rows */

PyDoc_STRVAR(burn_low_doc,
"burn_low(hp, rows, below) -> list[int]\n\n"
"The compiled twin of sc2pool.engine.sim.systems.repair._burning: the indices in ``rows`` (int64)\n"
"of the units alive and below their ``below`` (float64, one per row), in order.  ``hp``: float64,\n"
"one item per unit.");

static PyObject *py_burn_low(PyObject *self, PyObject *args) {
    PyObject *o[3];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO:burn_low", &o[0], &o[1], &o[2])) return NULL;
    const char *fn = "burn_low";
    kn_bufs b;
    b.n = 0;
    kn_column hp, rows, below;
    PyObject *out = NULL;
    int ok = kn_col(&b, o[0], 'd', KN_ANY, KN_STRIDED, &hp, fn, "hp") &&
             kn_col(&b, o[1], 'q', KN_ANY, KN_STRIDED, &rows, fn, "rows") &&
             kn_col(&b, o[2], 'd', rows.len, KN_STRIDED, &below, fn, "below") &&
             kn_in_range(rows, hp.len, fn, "rows");
    if (ok) out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < rows.len; i++) {
        double h = KN_AT(double, hp, KN_AT(long long, rows, i));
        if (h < KN_AT(double, below, i) && h > 0) {
            PyObject *k = PyLong_FromSsize_t(i);
            if (k == NULL || PyList_Append(out, k) < 0) Py_CLEAR(out);
            Py_XDECREF(k);
        }
    }
    kn_release(&b);
    return out;
}

/* ------------------------------------------------------------------ Construction.life */

/* The Structure fields grow_life reads and writes, as interned strings (made at the first call). */
enum { CMB_SINCE, CMB_DONE, CMB_BUILD_LOOPS, CMB_TAG, CMB_LIFE_SET, CMB_LIFE_LOST, CMB_FIELDS };
static const char *const cmb_field_names[CMB_FIELDS] = {"since", "done", "build_loops", "tag", "life_set",
                                                         "life_lost"};
static PyObject *cmb_fields[CMB_FIELDS];

static int cmb_intern_fields(void) {
    for (int i = 0; i < CMB_FIELDS; i++)
        if (cmb_fields[i] == NULL && (cmb_fields[i] = PyUnicode_InternFromString(cmb_field_names[i])) == NULL)
            return 0;
    return 1;
}

/* The float value of the field `f` of the Structure `obj` (an int or a float) into *out; 0 with a
 * ValueError naming it otherwise. */
static int cmb_attr_double(PyObject *obj, int f, double *out) {
    PyObject *v = PyObject_GetAttr(obj, cmb_fields[f]);
    int number = v != NULL && (PyFloat_Check(v) || PyLong_Check(v));
    double d = number ? PyFloat_AsDouble(v) : -1.0;
    Py_XDECREF(v);
    if (!number || (d == -1.0 && PyErr_Occurred())) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "grow_life: a structure's %s must be an int or a float", cmb_field_names[f]);
        return 0;
    }
    *out = d;
    return 1;
}

/* Set the field `f` of the Structure `obj` to the float `value`; 0 with an exception set otherwise. */
static int cmb_set_double(PyObject *obj, int f, double value) {
    PyObject *v = PyFloat_FromDouble(value);
    int ok = v != NULL && PyObject_SetAttr(obj, cmb_fields[f], v) == 0;
    Py_XDECREF(v);
    return ok;
}

PyDoc_STRVAR(grow_life_doc,
"grow_life(structures, rows, hp, ti, hp_max, now, start) -> None\n\n"
"The compiled twin of sc2pool.engine.sim.systems.construction._grow: every Structure of the dict\n"
"``structures`` under construction (``since`` >= 0, ``done`` < ``build_loops``) whose unit (row\n"
"``rows[tag]``, a dict) is alive gets the life of its progress at loop ``now`` (``start`` of its\n"
"type's ``hp_max`` at no progress, all of it when done) less its ``life_lost``, into ``hp``\n"
"(float64, writable); its ``life_lost`` and ``life_set`` are updated as _grow does.  ``ti``: the\n"
"units' type rows (int64), ``hp_max``: float64, per type row.");

static PyObject *py_grow_life(PyObject *self, PyObject *args) {
    PyObject *structures, *rows, *o[3];
    long long now;
    double start;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!OOOLd:grow_life", &PyDict_Type, &structures, &PyDict_Type, &rows, &o[0],
                          &o[1], &o[2], &now, &start))
        return NULL;
    const char *fn = "grow_life";
    kn_bufs b;
    b.n = 0;
    kn_column hp, ti, hp_max;
    int ok = cmb_intern_fields() && kn_col(&b, o[0], 'd', KN_ANY, KN_STRIDED | KN_WRITABLE, &hp, fn, "hp") &&
             kn_col(&b, o[1], 'q', hp.len, KN_STRIDED, &ti, fn, "ti") &&
             kn_col(&b, o[2], 'd', KN_ANY, KN_STRIDED, &hp_max, fn, "hp_max");
    Py_ssize_t n = ok ? hp.len : 0, n_types = ok ? hp_max.len : 0;
    Py_ssize_t pos = 0;
    PyObject *key, *s;
    while (ok && PyDict_Next(structures, &pos, &key, &s)) {
        Py_INCREF(s); /* (held while its attributes are set) */
        PyObject *since_o = PyObject_GetAttr(s, cmb_fields[CMB_SINCE]), *tag = NULL;
        long long since = since_o != NULL && PyLong_Check(since_o) ? PyLong_AsLongLong(since_o) : -1;
        if (since_o == NULL || !PyLong_Check(since_o) || (since == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: a structure's since must be an int", fn);
            ok = 0;
        }
        Py_XDECREF(since_o);
        double done = 0.0, loops = 0.0, h = 0.0;
        Py_ssize_t r = -1;
        if (ok && since >= 0)
            ok = cmb_attr_double(s, CMB_DONE, &done) && cmb_attr_double(s, CMB_BUILD_LOOPS, &loops);
        if (ok && since >= 0 && !(done >= loops)) { /* (under construction: not ``ready``) */
            tag = PyObject_GetAttr(s, cmb_fields[CMB_TAG]);
            PyObject *row = tag != NULL ? PyDict_GetItemWithError(rows, tag) : NULL;
            if (row != NULL) {
                r = PyLong_AsSsize_t(row);
                if (r == -1 && PyErr_Occurred()) ok = 0;
                else if (r < -1 || r >= n) {
                    PyErr_Format(PyExc_ValueError, "%s: rows gives a structure the row %zd of %zd units", fn, r, n);
                    ok = 0;
                }
            } else if (PyErr_Occurred()) {
                ok = 0;
            }
            Py_XDECREF(tag);
        }
        if (ok && r >= 0 && (h = KN_AT(double, hp, r)) > 0) { /* (one at 0 dies with this loop's deaths) */
            double set, lost;
            long long t = KN_AT(long long, ti, r);
            ok = cmb_attr_double(s, CMB_LIFE_SET, &set) && cmb_attr_double(s, CMB_LIFE_LOST, &lost);
            if (ok && (t < 0 || t >= n_types)) {
                PyErr_Format(PyExc_ValueError, "%s: ti[%zd] = %lld is no type row of %zd", fn, r, t, n_types);
                ok = 0;
            }
            if (ok && set >= 0) { /* (_note_loss) */
                lost = lost + (set - h);
                ok = cmb_set_double(s, CMB_LIFE_LOST, lost);
            }
            if (ok) {
                /* Structure.progress: since >= 0 here */
                double d = done + (double)(now - since), p = 1.0;
                if (loops > 0) {
                    double q = d / loops;
                    if (q < 1.0) p = q;
                }
                double top = KN_AT(double, hp_max, t);
                double life = top * (start + (1 - start) * p);
                if (lost != 0.0) { /* (a float's truth: NaN counts) */
                    double v = life - lost;
                    life = top < v ? top : v;
                }
                KN_AT(double, hp, r) = life;
                ok = cmb_set_double(s, CMB_LIFE_SET, life);
            }
        }
        Py_DECREF(s);
    }
    kn_release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}
