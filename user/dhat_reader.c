// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dhat_reader - DHAT v2 file -> struct dhat_profile, validated (see dhat_reader.h).
 *
 * The file is read whole through zlib (gzread passes plain files through unchanged), parsed
 * with cJSON (bounded nesting), checked field by field, and copied into plain structs so that
 * no cJSON type leaks to the users. Every check reports its JSON location.
 */
#include "dhat_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zlib.h>

/* Refuse to inflate beyond this: a profile is never near it, a gzip bomb would be. */
#define MAX_TEXT_SZ ((size_t)4 << 30)

struct rd {
	const char *name; /* file name for messages */
	char *err;
	size_t errsz;
};

/* Write "NAME: " + message into the error buffer, on one line. */
__attribute__((format(printf, 2, 3))) static void rd__fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errsz)
		return;
	n = snprintf(r->err, r->errsz, "%s: ", r->name);
	if (n < 0 || (size_t)n >= r->errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errsz - n, fmt, ap);
	va_end(ap);
	/* One line, whatever a file name or a string in the file contained. */
	for (char *p = r->err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static char *xstrdup_or_null(const cJSON *item)
{
	return cJSON_IsString(item) ? strdup(item->valuestring) : NULL;
}

/* A JSON number that is a non-negative integer representable in 64 bits. */
static bool as_u64(const cJSON *item, uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(item))
		return false;
	d = item->valuedouble;
	/* Range first (NaN fails too), then integrality; no libm needed. */
	if (!(d >= 0 && d < 18446744073709551616.0) || (double)(uint64_t)d != d)
		return false;
	*out = (uint64_t)d;
	return true;
}

static const char *json_type_name(const cJSON *item)
{
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	return "invalid";
}

/* Fetch obj.key (where = location prefix, e.g. "pps[3]: " or "") as an unsigned integer. */
static int get_u64(struct rd *r, const cJSON *obj, const char *where, const char *key, bool need,
		   uint64_t *out, bool *present)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (present)
		*present = it != NULL;
	if (!it) {
		if (!need) {
			*out = 0;
			return 0;
		}
		rd__fail(r, "%smissing field \"%s\"", where, key);
		return -EINVAL;
	}
	if (!as_u64(it, out)) {
		if (cJSON_IsNumber(it))
			rd__fail(r, "%sfield \"%s\" is %g, expected a non-negative integer", where,
				 key, it->valuedouble);
		else
			rd__fail(r, "%sfield \"%s\" is %s, expected a non-negative integer", where,
				 key, json_type_name(it));
		return -EINVAL;
	}
	return 0;
}

static int get_str(struct rd *r, const cJSON *obj, const char *key, bool need, char **out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!it) {
		if (!need)
			return 0;
		rd__fail(r, "missing field \"%s\"", key);
		return -EINVAL;
	}
	if (!cJSON_IsString(it)) {
		rd__fail(r, "field \"%s\" is %s, expected a string", key, json_type_name(it));
		return -EINVAL;
	}
	*out = xstrdup_or_null(it);
	return *out ? 0 : -ENOMEM;
}

static int get_bool(struct rd *r, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!it) {
		rd__fail(r, "missing field \"%s\"", key);
		return -EINVAL;
	}
	if (!cJSON_IsBool(it)) {
		rd__fail(r, "field \"%s\" is %s, expected true or false", key, json_type_name(it));
		return -EINVAL;
	}
	*out = cJSON_IsTrue(it);
	return 0;
}

static const cJSON *get_array(struct rd *r, const cJSON *obj, const char *where, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!it) {
		rd__fail(r, "%smissing field \"%s\"", where, key);
		return NULL;
	}
	if (!cJSON_IsArray(it)) {
		rd__fail(r, "%sfield \"%s\" is %s, expected an array", where, key,
			 json_type_name(it));
		return NULL;
	}
	return it;
}

void dhat_profile__free(struct dhat_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->pp_cnt; i++)
		free(p->pps[i].fs);
	free(p->pps);
	for (size_t i = 0; i < p->ftbl_cnt; i++)
		free(p->ftbl[i]);
	free(p->ftbl);
	free(p->path);
	free(p->mode);
	free(p->verb);
	free(p->tu);
	free(p->mtu);
	free(p->bu);
	free(p->bsu);
	free(p->bksu);
	free(p->cmd);
	free(p);
}

const char *dhat_profile__frame(const struct dhat_profile *p, uint32_t i)
{
	return i < p->ftbl_cnt ? p->ftbl[i] : "???";
}

static uint64_t hash_fs(const uint32_t *fs, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= fs[i];
		h *= 0x100000001b3ull;
	}
	return h ^ n;
}

/* The viewer aborts on two PPs with equal fs ("repeated location"): so do we. */
static int check_unique_fs(struct rd *r, const struct dhat_profile *p)
{
	size_t cap = 16, mask;
	size_t *slots; /* pp index + 1 */
	int err = 0;

	while (cap < p->pp_cnt * 2)
		cap <<= 1;
	mask = cap - 1;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t k = 0; k < p->pp_cnt; k++) {
		const struct dhat_pp *pp = &p->pps[k];
		size_t i = hash_fs(pp->fs, pp->fs_cnt) & mask;

		for (; slots[i]; i = (i + 1) & mask) {
			const struct dhat_pp *o = &p->pps[slots[i] - 1];

			if (o->fs_cnt == pp->fs_cnt &&
			    !memcmp(o->fs, pp->fs, pp->fs_cnt * sizeof(*pp->fs))) {
				rd__fail(r, "pps[%zu]: same \"fs\" as pps[%zu] (a repeated location)",
					 k, slots[i] - 1);
				err = -EINVAL;
				goto cleanup;
			}
		}
		slots[i] = k + 1;
	}
cleanup:
	free(slots);
	return err;
}

static int read_pp(struct rd *r, const struct dhat_profile *p, const cJSON *jpp, size_t k,
		   struct dhat_pp *pp)
{
	char where[48];
	const cJSON *fs, *acc, *it;
	size_t i = 0;
	int err;

	snprintf(where, sizeof(where), "pps[%zu]: ", k);
	if (!cJSON_IsObject(jpp)) {
		rd__fail(r, "pps[%zu] is %s, expected an object", k, json_type_name(jpp));
		return -EINVAL;
	}
	if ((err = get_u64(r, jpp, where, "tb", true, &pp->tb, NULL)) ||
	    (err = get_u64(r, jpp, where, "tbk", true, &pp->tbk, NULL)) ||
	    (err = get_u64(r, jpp, where, "tl", false, &pp->tl, &pp->has_tl)))
		return err;
	if (p->bklt &&
	    ((err = get_u64(r, jpp, where, "mb", true, &pp->mb, NULL)) ||
	     (err = get_u64(r, jpp, where, "mbk", true, &pp->mbk, NULL)) ||
	     (err = get_u64(r, jpp, where, "gb", true, &pp->gb, NULL)) ||
	     (err = get_u64(r, jpp, where, "gbk", true, &pp->gbk, NULL)) ||
	     (err = get_u64(r, jpp, where, "eb", true, &pp->eb, NULL)) ||
	     (err = get_u64(r, jpp, where, "ebk", true, &pp->ebk, NULL))))
		return err;
	if (p->bkacc && ((err = get_u64(r, jpp, where, "rb", true, &pp->rb, NULL)) ||
			 (err = get_u64(r, jpp, where, "wb", true, &pp->wb, NULL))))
		return err;

	/* acc (Valgrind heap mode): the viewer asserts on a count above 0xffff. */
	acc = cJSON_GetObjectItemCaseSensitive(jpp, "acc");
	if (acc) {
		if (!cJSON_IsArray(acc)) {
			rd__fail(r, "pps[%zu]: field \"acc\" is %s, expected an array", k,
				 json_type_name(acc));
			return -EINVAL;
		}
		cJSON_ArrayForEach(it, acc) {
			double d = it->valuedouble;

			/* -N starts a run of N equal values; others are counts <= 65535 */
			if (!cJSON_IsNumber(it) || d != (double)(int64_t)d || d > 65535 ||
			    d < -4294967296.0) {
				rd__fail(r, "pps[%zu]: acc[%zu] is not an access count (0..65535) "
					    "or a run length", k, i);
				return -EINVAL;
			}
			i++;
		}
		i = 0;
	}

	fs = get_array(r, jpp, where, "fs");
	if (!fs)
		return -EINVAL;
	pp->fs_cnt = (size_t)cJSON_GetArraySize(fs);
	pp->fs = calloc(pp->fs_cnt ? pp->fs_cnt : 1, sizeof(*pp->fs));
	if (!pp->fs)
		return -ENOMEM;
	cJSON_ArrayForEach(it, fs) {
		uint64_t v;

		if (!as_u64(it, &v)) {
			rd__fail(r, "pps[%zu]: fs[%zu] is %s, expected a frame index", k, i,
				 json_type_name(it));
			return -EINVAL;
		}
		if (v >= p->ftbl_cnt) {
			rd__fail(r, "pps[%zu]: fs[%zu] = %llu is out of range (ftbl has %zu frames)",
				 k, i, (unsigned long long)v, p->ftbl_cnt);
			return -EINVAL;
		}
		pp->fs[i++] = (uint32_t)v;
	}
	return 0;
}

static int read_profile(struct rd *r, const cJSON *root, struct dhat_profile *p)
{
	const cJSON *ver, *pps, *ftbl, *it;
	uint64_t pid;
	size_t i;
	int err;

	if (!cJSON_IsObject(root)) {
		rd__fail(r, "top level is %s, expected an object", json_type_name(root));
		return -EINVAL;
	}
	/* The viewer checks presence of all required keys first, in this order. */
	static const char *const required[] = { "dhatFileVersion", "mode", "verb", "bklt", "bkacc",
						"tu", "Mtu", "cmd", "pid", "te", "pps", "ftbl" };
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!cJSON_HasObjectItem(root, required[i])) {
			rd__fail(r, "missing field \"%s\"", required[i]);
			return -EINVAL;
		}
	}
	ver = cJSON_GetObjectItemCaseSensitive(root, "dhatFileVersion");
	/* The viewer compares with != 2, so the string "2" passes too. */
	if (!((cJSON_IsNumber(ver) && ver->valuedouble == 2) ||
	      (cJSON_IsString(ver) && !strcmp(ver->valuestring, "2")))) {
		if (cJSON_IsNumber(ver))
			rd__fail(r, "dhatFileVersion is %g, expected 2", ver->valuedouble);
		else
			rd__fail(r, "dhatFileVersion is %s, expected 2", json_type_name(ver));
		return -EINVAL;
	}
	if ((err = get_str(r, root, "mode", true, &p->mode)) ||
	    (err = get_str(r, root, "verb", true, &p->verb)) ||
	    (err = get_bool(r, root, "bklt", &p->bklt)) ||
	    (err = get_bool(r, root, "bkacc", &p->bkacc)) ||
	    (err = get_str(r, root, "tu", true, &p->tu)) ||
	    (err = get_str(r, root, "Mtu", true, &p->mtu)) ||
	    (err = get_str(r, root, "bu", false, &p->bu)) ||
	    (err = get_str(r, root, "bsu", false, &p->bsu)) ||
	    (err = get_str(r, root, "bksu", false, &p->bksu)) ||
	    (err = get_str(r, root, "cmd", true, &p->cmd)) ||
	    (err = get_u64(r, root, "", "pid", true, &pid, NULL)) ||
	    (err = get_u64(r, root, "", "te", true, &p->te, NULL)))
		return err;
	p->pid = (int64_t)pid;
	if (p->bklt && ((err = get_u64(r, root, "", "tg", true, &p->tg, NULL)) ||
			(err = get_u64(r, root, "", "tuth", true, &p->tuth, NULL))))
		return err;

	/* ftbl first: the PPs' indices are checked against it. */
	ftbl = get_array(r, root, "", "ftbl");
	if (!ftbl)
		return -EINVAL;
	p->ftbl = calloc((size_t)cJSON_GetArraySize(ftbl) + 1, sizeof(*p->ftbl));
	if (!p->ftbl)
		return -ENOMEM;
	i = 0;
	cJSON_ArrayForEach(it, ftbl) {
		if (!cJSON_IsString(it)) {
			rd__fail(r, "ftbl[%zu] is %s, expected a string", i, json_type_name(it));
			return -EINVAL;
		}
		p->ftbl[i] = strdup(it->valuestring);
		if (!p->ftbl[i])
			return -ENOMEM;
		p->ftbl_cnt = ++i;
	}

	pps = get_array(r, root, "", "pps");
	if (!pps)
		return -EINVAL;
	p->pps = calloc((size_t)cJSON_GetArraySize(pps) + 1, sizeof(*p->pps));
	if (!p->pps)
		return -ENOMEM;
	i = 0;
	cJSON_ArrayForEach(it, pps) {
		struct dhat_pp *pp = &p->pps[i];

		p->pp_cnt = i + 1; /* so that free() sees pp->fs even on failure */
		err = read_pp(r, p, it, i, pp);
		if (err)
			return err;
		p->total_bytes += pp->tb;
		p->total_blocks += pp->tbk;
		p->gmax_bytes += pp->gb;
		p->gmax_blocks += pp->gbk;
		p->end_bytes += pp->eb;
		p->end_blocks += pp->ebk;
		i++;
	}
	return check_unique_fs(r, p);
}

/* "line L, column C" of position pos in text. */
static void locate(const char *text, size_t pos, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

struct dhat_profile *dhat_profile__parse(const char *text, size_t len, const char *name, char *err,
					 size_t errsz)
{
	struct rd r = { .name = name ? name : "<input>", .err = err, .errsz = errsz };
	struct dhat_profile *p = NULL;
	const char *end = NULL;
	cJSON *root = NULL;
	size_t line, col;
	int ret;

	if (err && errsz)
		err[0] = '\0';
	/* FileReader drops a UTF-8 BOM before JSON.parse sees the text: do the same. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;
		len -= 3;
	}
	size_t ws = 0;

	while (ws < len && strchr(" \t\r\n", text[ws]) && text[ws])
		ws++;
	if (ws == len) {
		rd__fail(&r, "empty file, expected a DHAT JSON object");
		ret = -EINVAL;
		goto cleanup;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!root) {
		size_t pos = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;

		locate(text, pos, &line, &col);
		rd__fail(&r, "not valid JSON (line %zu, column %zu)", line, col);
		ret = -EINVAL;
		goto cleanup;
	}
	for (size_t pos = (size_t)(end - text); pos < len; pos++) {
		if (!strchr(" \t\r\n", text[pos]) || !text[pos]) {
			locate(text, pos, &line, &col);
			rd__fail(&r, "not valid JSON: unexpected data after the top-level value "
				     "(line %zu, column %zu)", line, col);
			ret = -EINVAL;
			goto cleanup;
		}
	}

	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = -ENOMEM;
		goto cleanup;
	}
	p->path = strdup(r.name);
	if (!p->path) {
		ret = -ENOMEM;
		goto cleanup;
	}
	ret = read_profile(&r, root, p);

cleanup:
	cJSON_Delete(root);
	if (ret) {
		if (ret == -ENOMEM && err && errsz && !err[0])
			rd__fail(&r, "out of memory");
		dhat_profile__free(p);
		errno = -ret;
		return NULL;
	}
	return p;
}

/* Read the whole file, inflating it if it is gzip. */
static int slurp(struct rd *r, const char *path, char **out, size_t *out_len)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = NULL, *nbuf;
	gzFile gz = NULL;
	int fd, n, err = 0, zerr;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		rd__fail(r, "cannot open: %s", strerror(errno));
		return err;
	}
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		rd__fail(r, "cannot read: out of memory");
		return -ENOMEM;
	}
	buf = malloc(cap + 1);
	if (!buf) {
		err = -ENOMEM;
		rd__fail(r, "cannot read: out of memory");
		goto cleanup;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= MAX_TEXT_SZ) {
				err = -EFBIG;
				rd__fail(r, "larger than %zu bytes", MAX_TEXT_SZ);
				goto cleanup;
			}
			cap *= 2;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf) {
				err = -ENOMEM;
				rd__fail(r, "cannot read: out of memory");
				goto cleanup;
			}
			buf = nbuf;
		}
		errno = 0;
		n = gzread(gz, buf + len, (unsigned)(cap - len < (1u << 30) ? cap - len : 1u << 30));
		if (n < 0) {
			const char *msg = gzerror(gz, &zerr);

			if (zerr == Z_ERRNO) {
				err = errno ? -errno : -EIO;
				rd__fail(r, "cannot read: %s", strerror(-err));
			} else {
				err = -EINVAL;
				rd__fail(r, "corrupt gzip data: %s", msg);
			}
			goto cleanup;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	buf = NULL;
cleanup:
	free(buf);
	gzclose(gz);
	return err;
}

struct dhat_profile *dhat_profile__load(const char *path, char *err, size_t errsz)
{
	struct rd r = { .name = path, .err = err, .errsz = errsz };
	struct dhat_profile *p;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (err && errsz)
		err[0] = '\0';
	ret = slurp(&r, path, &text, &len);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	p = dhat_profile__parse(text, len, path, err, errsz);
	ret = p ? 0 : -errno;
	free(text);
	if (!p)
		errno = -ret;
	return p;
}
