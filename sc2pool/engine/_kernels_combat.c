/* Heals, weapons coming ready and burning structures: C twins of the per-unit passes of
 * sc2pool/engine/sim/systems/abilities.py (_heals: the Medivacs' heals), combat.py (_ready: the
 * cooldowns counting down at the start of Combat.fire) and repair.py (_burning: the Terran
 * structures below a third of their life).  Included by _kernels.c;
 * tests/engine/test_kernels_combat.py holds each to its Python twin. */

#define CMB_MAX_BUFS 12 /* buffers one call borrows at most */

/* The buffers one call borrows, released together. */
typedef struct {
    Py_buffer v[CMB_MAX_BUFS];
    int n;
} cmb_bufs;

static void cmb_release(cmb_bufs *b) {
    while (b->n) PyBuffer_Release(&b->v[--b->n]);
}

/* A one-dimensional array used with its own stride: the unit store's columns are rows of blocks,
 * and those gathered by type (radius, suicide) are not contiguous. */
typedef struct {
    char *p;
    Py_ssize_t step;
} cmb_column;
#define CMB_AT(T, c, i) (*(T *)((c).p + (i) * (c).step))

static const char *cmb_kind_name(char kind) {
    return kind == 'd' ? "float64" : kind == 'q' ? "int64" : "bool";
}

/* Borrow `obj` as a one-dimensional array of `kind` items ('d' float64, 'q' int64, '?' bool) into
 * *c, writable when `writable`, C-contiguous when `contiguous`: `n` items, or at least `-n - 1`
 * items when `n` < 0 (the number goes to *len when `len` is not NULL); 0 with a ValueError naming
 * `fn` and `name` otherwise. */
static int cmb_col(cmb_bufs *b, PyObject *obj, char kind, Py_ssize_t n, int writable, int contiguous,
                   Py_ssize_t *len, cmb_column *c, const char *fn, const char *name) {
    Py_buffer *v = &b->v[b->n];
    Py_ssize_t size = kind == '?' ? 1 : 8;
    int flags = PyBUF_FORMAT | (contiguous ? PyBUF_C_CONTIGUOUS : PyBUF_STRIDES) | (writable ? PyBUF_WRITABLE : 0);
    int ok = 0;
    if (b->n < CMB_MAX_BUFS && PyObject_GetBuffer(obj, v, flags) == 0) {
        b->n++;
        const char *f = v->format;
        char last = f[0] ? f[strlen(f) - 1] : 0;
        ok = v->itemsize == size && (last == kind || (kind == 'q' && last == 'l')) && v->ndim == 1;
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: %s must be a one-dimensional %s%s%s array", fn, name,
                     writable ? "writable " : "", contiguous ? "C-contiguous " : "", cmb_kind_name(kind));
        return 0;
    }
    Py_ssize_t items = v->shape[0];
    if ((n >= 0 && items != n) || (n < 0 && items < -n - 1)) {
        PyErr_Format(PyExc_ValueError, "%s: %s holds %zd items where %s%zd are needed", fn, name, items,
                     n < 0 ? "at least " : "", n < 0 ? -n - 1 : n);
        return 0;
    }
    if (len != NULL) *len = items;
    c->p = (char *)v->buf;
    c->step = v->strides[0];
    return 1;
}

/* 1 when every one of the `k` rows of `rows` is a row of `n` units; 0 with a ValueError otherwise. */
static int cmb_rows_ok(cmb_column rows, Py_ssize_t k, Py_ssize_t n, const char *fn, const char *name) {
    for (Py_ssize_t i = 0; i < k; i++) {
        long long r = CMB_AT(long long, rows, i);
        if (r < 0 || r >= n) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] = %lld is no row of %zd units", fn, name, i, r, n);
            return 0;
        }
    }
    return 1;
}

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
    cmb_bufs b = {.n = 0};
    Py_ssize_t n, r, m, c = -1;
    cmb_column hp, rows, tops, x, y, med, idx_c, dxy_c;
    int ok = cmb_col(&b, o[0], 'd', -1, 0, 0, &n, &hp, fn, "hp") &&
             cmb_col(&b, o[1], 'q', -1, 0, 0, &r, &rows, fn, "rows") &&
             cmb_col(&b, o[2], 'd', r, 0, 0, NULL, &tops, fn, "tops") &&
             cmb_col(&b, o[3], 'd', n, 0, 0, NULL, &x, fn, "x") &&
             cmb_col(&b, o[4], 'd', n, 0, 0, NULL, &y, fn, "y") &&
             cmb_col(&b, o[5], 'q', -1, 0, 0, &m, &med, fn, "medivacs") &&
             cmb_col(&b, o[6], 'q', -2 * r - 1, 1, 1, NULL, &idx_c, fn, "idx") &&
             cmb_col(&b, o[7], 'd', -2 * m * r - 1, 1, 1, NULL, &dxy_c, fn, "dxy") &&
             cmb_rows_ok(rows, r, n, fn, "rows") && cmb_rows_ok(med, m, n, fn, "medivacs");
    if (ok) {
        long long *idx = (long long *)idx_c.p;
        double *dxy = (double *)dxy_c.p;
        c = 0;
        for (Py_ssize_t i = 0; i < r; i++) { /* (hp < tops, then hp > 0: a NaN life is neither) */
            long long row = CMB_AT(long long, rows, i);
            double h = CMB_AT(double, hp, row);
            if (h < CMB_AT(double, tops, i) && h > 0) {
                idx[c] = row;
                idx[r + c] = i;
                c++;
            }
        }
        memmove(idx + c, idx + r, sizeof(long long) * (size_t)c);
        double *dx = dxy, *dy = dxy + m * c;
        for (Py_ssize_t i = 0; i < m; i++) {
            long long mr = CMB_AT(long long, med, i);
            double mx = CMB_AT(double, x, mr), my = CMB_AT(double, y, mr);
            for (Py_ssize_t j = 0; j < c; j++) {
                dx[i * c + j] = CMB_AT(double, x, idx[j]) - mx;
                dy[i * c + j] = CMB_AT(double, y, idx[j]) - my;
            }
        }
    }
    cmb_release(&b);
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
    cmb_bufs b = {.n = 0};
    Py_ssize_t n, r, m = PySequence_Fast_GET_SIZE(en);
    cmb_column dist, idx_c, tops, radius, owner, med, hp;
    PyObject *out = NULL;
    int ok = cmb_col(&b, o[11], 'd', -1, 1, 0, &n, &hp, fn, "hp") &&
             cmb_col(&b, o[6], 'q', m, 0, 0, NULL, &med, fn, "medivacs") &&
             cmb_col(&b, o[0], 'd', m * c, 0, 1, NULL, &dist, fn, "dist") &&
             cmb_col(&b, o[1], 'q', -2 * c - 1, 0, 1, NULL, &idx_c, fn, "idx") &&
             cmb_col(&b, o[3], 'd', -1, 0, 0, &r, &tops, fn, "tops") &&
             cmb_col(&b, o[4], 'd', n, 0, 0, NULL, &radius, fn, "radius") &&
             cmb_col(&b, o[5], 'q', n, 0, 0, NULL, &owner, fn, "owner") &&
             cmb_rows_ok(med, m, n, fn, "medivacs");
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
        long long mr = CMB_AT(long long, med, i);
        double r_m = CMB_AT(double, radius, mr);
        long long own = CMB_AT(long long, owner, mr);
        /* numpy's argmin and min of the row: the first least distance, or the first NaN */
        const double *row = (const double *)dist.p + i * c;
        Py_ssize_t near = 0;
        double best = 0.0;
        for (Py_ssize_t j = 0; j < c; j++) {
            double d = CMB_AT(long long, owner, idx[j]) != own ? INFINITY
                                                               : row[j] - CMB_AT(double, radius, idx[j]) - r_m;
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
        double *h = &CMB_AT(double, hp, t);
        /* Python's min(most, top - life, energy * per_energy): the first of the least */
        double amount = most, lack = CMB_AT(double, tops, idx[c + near]) - *h, afford = e * per_energy;
        if (lack < amount) amount = lack;
        if (afford < amount) amount = afford;
        if (amount <= 0) continue;
        *h = *h + amount;
        PyObject *item = Py_BuildValue("(nd)", i, e - amount / per_energy);
        if (item == NULL || PyList_Append(out, item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
    }
    cmb_release(&b);
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
    cmb_bufs b = {.n = 0};
    Py_ssize_t n;
    cmb_column cd, in_range, kind, suicide, masks, cdn_c;
    int has_suicide = o[4] != Py_None;
    int ok = cmb_col(&b, o[0], 'd', -1, 1, 0, &n, &cd, fn, "cd") &&
             cmb_col(&b, o[1], '?', n, 0, 0, NULL, &in_range, fn, "in_range") &&
             cmb_col(&b, o[2], 'q', n, 0, 0, NULL, &kind, fn, "kind") &&
             (!has_suicide || cmb_col(&b, o[4], '?', n, 0, 0, NULL, &suicide, fn, "suicide")) &&
             cmb_col(&b, o[6], 'd', n, 1, 1, NULL, &cdn_c, fn, "cdn");
    if (ok) {
        Py_buffer *v = &b.v[b.n];
        if (PyObject_GetBuffer(o[5], v, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) == 0) {
            b.n++;
            ok = v->itemsize == 1 && strcmp(v->format, "?") == 0 && v->ndim == 2 && v->shape[0] == 4 &&
                 v->shape[1] == n;
        } else {
            PyErr_Clear();
            ok = 0;
        }
        if (!ok)
            PyErr_Format(PyExc_ValueError, "%s: masks must be a writable C-contiguous bool array of 4 x %zd", fn, n);
        masks.p = ok ? (char *)v->buf : NULL;
    }
    if (ok) {
        unsigned char *fire = (unsigned char *)masks.p, *explode = fire + n, *blast = explode + n,
                      *cooling = blast + n;
        double *cdn = (double *)cdn_c.p;
        Py_ssize_t n_blast = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            double was = CMB_AT(double, cd, i), less = was - 1.0;
            int f = CMB_AT(unsigned char, in_range, i) && less <= 0.0;
            int ex = CMB_AT(long long, kind, i) == explode_kind;
            int bl = ex || (has_suicide && f && CMB_AT(unsigned char, suicide, i));
            cooling[i] = was > 0.0;
            cdn[i] = less;
            CMB_AT(double, cd, i) = less >= 0.0 || less != less ? less : 0.0; /* numpy's maximum */
            fire[i] = (unsigned char)f;
            explode[i] = (unsigned char)ex;
            blast[i] = (unsigned char)bl;
            n_blast += bl;
        }
        if (n_blast && has_suicide) /* (a suicide attacker that fired blasts instead) */
            for (Py_ssize_t i = 0; i < n; i++)
                fire[i] = fire[i] && !CMB_AT(unsigned char, suicide, i);
    }
    cmb_release(&b);
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
    cmb_bufs b = {.n = 0};
    Py_ssize_t n, r;
    cmb_column hp, rows, below;
    PyObject *out = NULL;
    int ok = cmb_col(&b, o[0], 'd', -1, 0, 0, &n, &hp, fn, "hp") &&
             cmb_col(&b, o[1], 'q', -1, 0, 0, &r, &rows, fn, "rows") &&
             cmb_col(&b, o[2], 'd', r, 0, 0, NULL, &below, fn, "below") && cmb_rows_ok(rows, r, n, fn, "rows");
    if (ok) out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < r; i++) {
        double h = CMB_AT(double, hp, CMB_AT(long long, rows, i));
        if (h < CMB_AT(double, below, i) && h > 0) {
            PyObject *k = PyLong_FromSsize_t(i);
            if (k == NULL || PyList_Append(out, k) < 0) Py_CLEAR(out);
            Py_XDECREF(k);
        }
    }
    cmb_release(&b);
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
    cmb_bufs b = {.n = 0};
    Py_ssize_t n, n_types;
    cmb_column hp, ti, hp_max;
    int ok = cmb_intern_fields() && cmb_col(&b, o[0], 'd', -1, 1, 0, &n, &hp, fn, "hp") &&
             cmb_col(&b, o[1], 'q', n, 0, 0, NULL, &ti, fn, "ti") &&
             cmb_col(&b, o[2], 'd', -1, 0, 0, &n_types, &hp_max, fn, "hp_max");
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
        if (ok && r >= 0 && (h = CMB_AT(double, hp, r)) > 0) { /* (one at 0 dies with this loop's deaths) */
            double set, lost;
            long long t = CMB_AT(long long, ti, r);
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
                double top = CMB_AT(double, hp_max, t);
                double life = top * (start + (1 - start) * p);
                if (lost != 0.0) { /* (a float's truth: NaN counts) */
                    double v = life - lost;
                    life = top < v ? top : v;
                }
                CMB_AT(double, hp, r) = life;
                ok = cmb_set_double(s, CMB_LIFE_SET, life);
            }
        }
        Py_DECREF(s);
    }
    cmb_release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}
