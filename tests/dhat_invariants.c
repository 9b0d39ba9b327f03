// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "dhat_invariants.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "collector.h"

struct dhat_inv_expect dhat_inv_expect_from(const struct collector_totals *t)
{
	return (struct dhat_inv_expect){
		.total_bytes = t->total_bytes, .total_blocks = t->total_blocks,
		.max_bytes = t->max_bytes, .max_blocks = t->max_blocks,
		.end_bytes = t->live_bytes, .end_blocks = t->live_blocks,
	};
}

__attribute__((format(printf, 3, 4))) static int fail(char *msg, size_t msgsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msgsz, fmt, ap);
	va_end(ap);
	return -1;
}

static bool get_int(const cJSON *obj, const char *key, uint64_t *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble != floor(it->valuedouble))
		return false;
	*v = (uint64_t)it->valuedouble;
	return true;
}

static bool str_is(const cJSON *obj, const char *key, const char *want)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(it) && (!want || !strcmp(it->valuestring, want));
}

static int check(const cJSON *root, const struct dhat_inv_expect *exp, char *msg, size_t msgsz)
{
	static const char *const pp_keys[] = { "tb", "tbk", "tl", "mb", "mbk",
					       "gb", "gbk", "eb", "ebk" };
	uint64_t v, te, tg, s_tb = 0, s_tbk = 0, s_gb = 0, s_gbk = 0, s_eb = 0, s_ebk = 0;
	const cJSON *pps, *ftbl, *pp, *f;
	int nf, npp, k = 0;

	if (!cJSON_IsObject(root))
		return fail(msg, msgsz, "top level is not an object");
	if (!get_int(root, "dhatFileVersion", &v) || v != 2)
		return fail(msg, msgsz, "dhatFileVersion is not 2");
	if (!str_is(root, "mode", NULL) || !str_is(root, "verb", "Allocated") ||
	    !str_is(root, "tu", "\xc2\xb5s") || !str_is(root, "Mtu", "s") ||
	    !str_is(root, "cmd", NULL))
		return fail(msg, msgsz, "mode/verb/tu/Mtu/cmd missing or wrong");
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "bklt")) ||
	    !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "bkacc")))
		return fail(msg, msgsz, "bklt must be true and bkacc false");
	if (!get_int(root, "tuth", &v) || v != 10)
		return fail(msg, msgsz, "tuth is not 10");
	if (!get_int(root, "pid", &v))
		return fail(msg, msgsz, "pid is not an integer");
	if (!get_int(root, "te", &te) || !get_int(root, "tg", &tg))
		return fail(msg, msgsz, "te/tg missing or not integers");
	if (tg > te)
		return fail(msg, msgsz, "tg %llu > te %llu", (unsigned long long)tg,
			    (unsigned long long)te);

	ftbl = cJSON_GetObjectItemCaseSensitive(root, "ftbl");
	if (!cJSON_IsArray(ftbl) || !(nf = cJSON_GetArraySize(ftbl)))
		return fail(msg, msgsz, "ftbl is not a non-empty array");
	if (!cJSON_IsString(ftbl->child) || strcmp(ftbl->child->valuestring, "[root]"))
		return fail(msg, msgsz, "ftbl[0] is not \"[root]\"");
	for (const cJSON *a = ftbl->child; a; a = a->next) {
		if (!cJSON_IsString(a))
			return fail(msg, msgsz, "ftbl entry is not a string");
		for (const cJSON *b = a->next; b; b = b->next)
			if (cJSON_IsString(b) && !strcmp(a->valuestring, b->valuestring))
				return fail(msg, msgsz, "frame string repeated in ftbl: %s",
					    a->valuestring);
	}

	pps = cJSON_GetObjectItemCaseSensitive(root, "pps");
	if (!cJSON_IsArray(pps))
		return fail(msg, msgsz, "pps is not an array");
	npp = cJSON_GetArraySize(pps);
	cJSON_ArrayForEach(pp, pps) {
		uint64_t x[9];
		const cJSON *fs = cJSON_GetObjectItemCaseSensitive(pp, "fs");

		for (int i = 0; i < 9; i++)
			if (!get_int(pp, pp_keys[i], &x[i]))
				return fail(msg, msgsz, "pps[%d]: %s missing or not an integer", k,
					    pp_keys[i]);
		/* x: 0 tb, 1 tbk, 2 tl, 3 mb, 4 mbk, 5 gb, 6 gbk, 7 eb, 8 ebk */
		if (!(x[5] <= x[3] && x[3] <= x[0] && x[7] <= x[3] && x[4] <= x[1]))
			return fail(msg, msgsz,
				    "pps[%d]: needs gb<=mb<=tb, eb<=mb, mbk<=tbk: tb %llu mb %llu "
				    "gb %llu eb %llu", k, (unsigned long long)x[0],
				    (unsigned long long)x[3], (unsigned long long)x[5],
				    (unsigned long long)x[7]);
		if (!x[1])
			return fail(msg, msgsz, "pps[%d]: tbk is 0", k);
		s_tb += x[0], s_tbk += x[1], s_gb += x[5], s_gbk += x[6], s_eb += x[7],
			s_ebk += x[8];
		if (!cJSON_IsArray(fs) || !cJSON_GetArraySize(fs))
			return fail(msg, msgsz, "pps[%d]: fs is not a non-empty array", k);
		cJSON_ArrayForEach(f, fs) {
			if (!cJSON_IsNumber(f) || f->valuedouble != floor(f->valuedouble))
				return fail(msg, msgsz, "pps[%d]: fs holds a non-integer", k);
			if (f->valuedouble == 0)
				return fail(msg, msgsz, "pps[%d]: fs holds 0 ([root])", k);
			if (f->valuedouble < 0 || f->valuedouble >= nf)
				return fail(msg, msgsz, "pps[%d]: fs index %g out of range", k,
					    f->valuedouble);
		}
		/* Quadratic, fine for test-sized files. */
		int j = 0;
		const cJSON *q;

		cJSON_ArrayForEach(q, pps) {
			if (j++ >= k)
				break;
			const cJSON *qfs = cJSON_GetObjectItemCaseSensitive(q, "fs");
			const cJSON *a = fs->child, *b = qfs ? qfs->child : NULL;

			while (a && b && a->valuedouble == b->valuedouble)
				a = a->next, b = b->next;
			if (!a && !b)
				return fail(msg, msgsz, "pps[%d] and pps[%d] have equal fs", j - 1, k);
		}
		k++;
	}
	(void)npp;
	if (exp) {
		if (s_tb != exp->total_bytes || s_tbk != exp->total_blocks)
			return fail(msg, msgsz, "Σtb/Σtbk %llu/%llu, expected %llu/%llu",
				    (unsigned long long)s_tb, (unsigned long long)s_tbk,
				    (unsigned long long)exp->total_bytes,
				    (unsigned long long)exp->total_blocks);
		if (s_gb != exp->max_bytes || s_gbk != exp->max_blocks)
			return fail(msg, msgsz, "Σgb/Σgbk %llu/%llu, expected peak %llu/%llu",
				    (unsigned long long)s_gb, (unsigned long long)s_gbk,
				    (unsigned long long)exp->max_bytes,
				    (unsigned long long)exp->max_blocks);
		if (s_eb != exp->end_bytes || s_ebk != exp->end_blocks)
			return fail(msg, msgsz, "Σeb/Σebk %llu/%llu, expected live %llu/%llu",
				    (unsigned long long)s_eb, (unsigned long long)s_ebk,
				    (unsigned long long)exp->end_bytes,
				    (unsigned long long)exp->end_blocks);
	}
	return 0;
}

int dhat_check_invariants_text(const char *text, size_t len, const struct dhat_inv_expect *exp,
			       char *msg, size_t msgsz)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	int ret;

	if (!root)
		return fail(msg, msgsz, "not valid JSON at offset %td", end ? end - text : -1);
	for (const char *p = end; p < text + len; p++)
		if (!strchr(" \t\r\n", *p) || !*p) {
			cJSON_Delete(root);
			return fail(msg, msgsz, "data after the JSON value");
		}
	ret = check(root, exp, msg, msgsz);
	cJSON_Delete(root);
	return ret;
}

int dhat_check_invariants(const char *path, const struct dhat_inv_expect *exp, char *msg,
			  size_t msgsz)
{
	gzFile gz = gzopen(path, "rb");
	size_t len = 0, cap = 1 << 16;
	char *buf;
	int n, ret;

	if (!gz)
		return fail(msg, msgsz, "%s: cannot open", path);
	buf = malloc(cap);
	while (buf && (n = gzread(gz, buf + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(gz);
	if (!buf)
		return fail(msg, msgsz, "%s: out of memory", path);
	ret = dhat_check_invariants_text(buf, len, exp, msg, msgsz);
	free(buf);
	return ret;
}
