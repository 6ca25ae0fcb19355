/* Observation encoding: the C twin of the unit records of sc2pool/engine/sim/encode.py
 * (encode_units, unit_records + encode_records) as sc2pool/engine/game.py's Game._encode_units
 * calls them.  Included by _kernels.c; tests/engine/test_kernels_encode.py holds it to its Python
 * twin. */

#define ENC_RECORD 80              /* bytes of one unit record: _UNIT_DTYPE.itemsize in encode.py */
#define ENC_BODY (ENC_RECORD - 3)  /* UNIT_BODY_LEN: the record after its key and 2-byte length */
#define ENC_TAG_LIMIT (1LL << 35)  /* TAG_LIMIT: tags are written as 5-byte varints */
#define ENC_LEN_LIMIT (1L << 14)   /* a record's length is a 2-byte varint */

/* _TEMPLATE in encode.py: every key, display_type Visible, build_progress 1.0, cloak NotCloaked;
 * the fields left zero here are written per unit at the ENC_* offsets below (_UNIT_DTYPE's). */
static const unsigned char enc_template[ENC_RECORD] = {
    0x12, 0xcd, 0x00, 0x08, 0x01, 0x10, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00,
    0x28, 0x00, 0x32, 0x0f, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x1d, 0x00,
    0x00, 0x00, 0x00, 0x3d, 0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x00, 0x00, 0x4d, 0x00, 0x00,
    0x80, 0x3f, 0x50, 0x03, 0x75, 0x00, 0x00, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x00, 0x00, 0x85, 0x01,
    0x00, 0x00, 0x00, 0x00, 0xa5, 0x02, 0x00, 0x00, 0x00, 0x00, 0xf5, 0x01, 0x00, 0x00, 0x00, 0x00,
};
enum {
    ENC_LEN = 1, ENC_ALLIANCE = 6, ENC_TAG = 8, ENC_UTYPE = 14, ENC_OWNER = 17, ENC_X = 21, ENC_Y = 26,
    ENC_Z = 31, ENC_FACING = 36, ENC_RADIUS = 41, ENC_HEALTH = 53, ENC_HEALTH_MAX = 58, ENC_SHIELD = 64,
    ENC_SHIELD_MAX = 70, ENC_COOLDOWN = 76,
};

/* `v` rounded to float32 (numpy's float64 -> float32 cast) at p, little-endian as "<f4". */
static inline void enc_f4(unsigned char *p, double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
}

/* pad2 in encode.py: the 2-byte varint of `v` as a little-endian uint16 (wrapped as numpy's cast
 * of the int64 expression to "<u2"). */
static inline void enc_pad2(unsigned char *p, long long v) {
    uint16_t u = (uint16_t)(((v & 0x7F) | 0x80) | ((v >> 7) << 8));
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
}

/* The columns of one call (every one but the tables indexed by `ti`: one item per unit; z.p NULL:
 * every unit at z_all; snapshot.p NULL: no snapshots). */
typedef struct {
    kn_column tag, ti, unit_id, owner, x, y, z, facing, radius, health, shield, cooldown, snapshot;
    kn_column hp_max, sh_max;
    double z_all;
    long long player, neutral;
} enc_units;

/* The record of unit `r` at `p`, with its body length `len` (the fixed part and its tails). */
static void enc_record(const enc_units *c, Py_ssize_t r, long len, unsigned char *p) {
    memcpy(p, enc_template, ENC_RECORD);
    enc_pad2(p + ENC_LEN, len);
    long long owner = KN_AT(const long long, c->owner, r);
    p[ENC_ALLIANCE] = owner == c->player ? 1 : owner == c->neutral ? 3 : 4; /* _alliance in game.py */
    uint64_t t = (uint64_t)KN_AT(const long long, c->tag, r);             /* (tag.astype(np.uint64)) */
    for (int k = 0; k < 5; k++) p[ENC_TAG + k] = (unsigned char)(((t >> (7 * k)) & 0x7F) | (k < 4 ? 0x80 : 0));
    enc_pad2(p + ENC_UTYPE, KN_AT(const long long, c->unit_id, r));
    p[ENC_OWNER] = (unsigned char)owner;
    enc_f4(p + ENC_X, KN_AT(const double, c->x, r));
    enc_f4(p + ENC_Y, KN_AT(const double, c->y, r));
    enc_f4(p + ENC_Z, c->z.p != NULL ? KN_AT(const double, c->z, r) : c->z_all);
    enc_f4(p + ENC_FACING, KN_AT(const double, c->facing, r));
    enc_f4(p + ENC_RADIUS, KN_AT(const double, c->radius, r));
    long long ti = KN_AT(const long long, c->ti, r);
    enc_f4(p + ENC_HEALTH, KN_AT(const double, c->health, r));
    enc_f4(p + ENC_HEALTH_MAX, KN_AT(const double, c->hp_max, ti));
    enc_f4(p + ENC_SHIELD, KN_AT(const double, c->shield, r));
    enc_f4(p + ENC_SHIELD_MAX, KN_AT(const double, c->sh_max, ti));
    enc_f4(p + ENC_COOLDOWN, KN_AT(const double, c->cooldown, r));
}

/* The row of the i-th unit encoded: rows[i], or i without rows. */
static inline Py_ssize_t enc_row(const kn_column *rows, Py_ssize_t i) {
    return rows != NULL ? (Py_ssize_t)KN_AT(const long long, *rows, i) : i;
}

/* Unit r's tail: its item of `tail` (NULL: none), then `snap` where it is a snapshot. */
static inline Py_ssize_t enc_tail_len(const enc_units *c, PyObject *tail, Py_ssize_t snap_len, Py_ssize_t r) {
    Py_ssize_t k = tail != NULL ? PyBytes_GET_SIZE(PyList_GET_ITEM(tail, r)) : 0;
    if (c->snapshot.p != NULL && KN_AT(const unsigned char, c->snapshot, r)) k += snap_len;
    return k;
}

/* The encoded units' records and tails into a new bytes object; NULL with an exception set. */
static PyObject *enc_encode(const enc_units *c, Py_ssize_t n, const kn_column *rows, Py_ssize_t m,
                            PyObject *tail, PyObject *snap) {
    Py_ssize_t snap_len = PyBytes_GET_SIZE(snap);
    /* (checked in encode_records' order: every tag, then every record's length) */
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t r = enc_row(rows, i);
        if (r < 0 || r >= n) {
            PyErr_Format(PyExc_ValueError, "encode_units: rows[%zd] = %zd is no row of %zd units", i, r, n);
            return NULL;
        }
        long long ti = KN_AT(const long long, c->ti, r);
        if (ti < 0 || ti >= c->hp_max.len || ti >= c->sh_max.len) {
            PyErr_Format(PyExc_ValueError, "encode_units: ti[%zd] = %lld is no row of hp_max and sh_max", r, ti);
            return NULL;
        }
        if (KN_AT(const long long, c->tag, r) >= ENC_TAG_LIMIT) {
            PyErr_SetString(PyExc_OverflowError, "unit tag beyond the 5-byte varint range");
            return NULL;
        }
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t k = enc_tail_len(c, tail, snap_len, enc_row(rows, i));
        if (ENC_BODY + k >= ENC_LEN_LIMIT) {
            PyErr_SetString(PyExc_OverflowError, "unit record too long");
            return NULL;
        }
        total += ENC_RECORD + k;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL) return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t r = enc_row(rows, i);
        Py_ssize_t k = enc_tail_len(c, tail, snap_len, r);
        enc_record(c, r, (long)(ENC_BODY + k), p);
        p += ENC_RECORD;
        if (tail != NULL) {
            PyObject *b = PyList_GET_ITEM(tail, r);
            Py_ssize_t len = PyBytes_GET_SIZE(b);
            memcpy(p, PyBytes_AS_STRING(b), (size_t)len);
            p += len;
        }
        if (c->snapshot.p != NULL && KN_AT(const unsigned char, c->snapshot, r)) {
            memcpy(p, PyBytes_AS_STRING(snap), (size_t)snap_len);
            p += snap_len;
        }
    }
    return out;
}

PyDoc_STRVAR(encode_units_doc,
"encode_units(tag, ti, unit_id, owner, player, neutral, x, y, z, facing, radius, health, hp_max,\n"
"    shield, sh_max, cooldown, rows, tail, snapshot, snapshot_tail) -> bytes\n\n"
"The wire bytes of the ``ObservationRaw.units`` entries of the units ``rows`` (int64, in their\n"
"order; every unit when None): the compiled twin of sc2pool.engine.sim.encode.encode_units with\n"
"the alliance of each unit as ``player`` sees it (owner ``player`` Self, ``neutral`` Neutral, else\n"
"Enemy), health_max ``hp_max[ti]`` and shield_max ``sh_max[ti]`` (the type tables), and as tails\n"
"the unit's item of ``tail`` (a list of bytes, one per unit, not per encoded unit; None: none)\n"
"followed by ``snapshot_tail`` where ``snapshot`` (bool, one per unit; None: nowhere).  ``z`` is\n"
"one height for every unit or a float64 array of one per unit; ``tag``, ``ti``, ``unit_id``,\n"
"``owner`` are int64 arrays, the other columns float64 arrays, one item per unit.");

static PyObject *py_encode_units(PyObject *self, PyObject *args) {
    PyObject *o[20];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOOO:encode_units", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &o[16],
                          &o[17], &o[18], &o[19]))
        return NULL;
    enc_units c;
    memset(&c, 0, sizeof c);
    c.player = PyLong_AsLongLong(o[4]);
    if (c.player == -1 && PyErr_Occurred()) return NULL;
    c.neutral = PyLong_AsLongLong(o[5]);
    if (c.neutral == -1 && PyErr_Occurred()) return NULL;
    PyObject *tail = o[17] == Py_None ? NULL : o[17], *snap = o[19];
    if (!PyBytes_Check(snap)) {
        PyErr_SetString(PyExc_ValueError, "encode_units: snapshot_tail must be bytes");
        return NULL;
    }
    const char *fn = "encode_units";
    kn_bufs b;
    b.n = 0;
    PyObject *out = NULL;
    kn_column rows_c;
    Py_ssize_t n;
    if (!kn_col(&b, o[0], 'q', KN_ANY, KN_STRIDED, &c.tag, fn, "tag")) goto done;
    n = c.tag.len;
    if (!kn_col(&b, o[1], 'q', n, KN_STRIDED, &c.ti, fn, "ti") ||
        !kn_col(&b, o[2], 'q', n, KN_STRIDED, &c.unit_id, fn, "unit_id") ||
        !kn_col(&b, o[3], 'q', n, KN_STRIDED, &c.owner, fn, "owner") ||
        !kn_col(&b, o[6], 'd', n, KN_STRIDED, &c.x, fn, "x") || !kn_col(&b, o[7], 'd', n, KN_STRIDED, &c.y, fn, "y") ||
        !kn_col(&b, o[9], 'd', n, KN_STRIDED, &c.facing, fn, "facing") ||
        !kn_col(&b, o[10], 'd', n, KN_STRIDED, &c.radius, fn, "radius") ||
        !kn_col(&b, o[11], 'd', n, KN_STRIDED, &c.health, fn, "health") ||
        !kn_col(&b, o[12], 'd', KN_ANY, KN_STRIDED, &c.hp_max, fn, "hp_max") ||
        !kn_col(&b, o[13], 'd', n, KN_STRIDED, &c.shield, fn, "shield") ||
        !kn_col(&b, o[14], 'd', KN_ANY, KN_STRIDED, &c.sh_max, fn, "sh_max") ||
        !kn_col(&b, o[15], 'd', n, KN_STRIDED, &c.cooldown, fn, "cooldown") ||
        !kn_number_or(&b, o[8], n, KN_STRIDED, &c.z_all, &c.z, fn, "z") ||
        (o[16] != Py_None && !kn_col(&b, o[16], 'q', KN_ANY, KN_STRIDED, &rows_c, fn, "rows")))
        goto done;
    if (o[18] != Py_None && !kn_col(&b, o[18], '?', n, KN_STRIDED, &c.snapshot, fn, "snapshot")) goto done;
    if (tail != NULL) {
        if (!PyList_Check(tail) || PyList_GET_SIZE(tail) != n) {
            PyErr_Format(PyExc_ValueError, "encode_units: tail must be a list of %zd bytes", n);
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!PyBytes_Check(PyList_GET_ITEM(tail, i))) {
                PyErr_Format(PyExc_ValueError, "encode_units: tail[%zd] is not bytes", i);
                goto done;
            }
        }
    }
    out = enc_encode(&c, n, o[16] == Py_None ? NULL : &rows_c, o[16] == Py_None ? n : rows_c.len, tail, snap);
done:
    kn_release(&b);
    return out;
}
