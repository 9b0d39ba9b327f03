// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "safe_text.h"

#include <stdbool.h>
#include <string.h>

size_t safe_text__utf8_len(const unsigned char *p)
{
	unsigned int cp;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL terminator */
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* The next piece of s for a terminal: *len bytes of s to copy as they are, or (returned
 * true) one byte to show as \xHH. */
static int next_piece(const unsigned char *p, size_t *len)
{
	size_t n = safe_text__utf8_len(p);

	/* C0 controls and DEL; C1 controls (U+0080..U+009F: 0xc2 0x80..0x9f) act like ESC. */
	if (!n || p[0] < 0x20 || p[0] == 0x7f || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
		*len = 1;
		return 1;
	}
	*len = n;
	return 0;
}

void safe_text__fputs_term(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "(null)");
	size_t n;

	while (*p) {
		if (next_piece(p, &n))
			fprintf(f, "\\x%02x", *p);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}

void safe_text__copy_term(char *dst, size_t dst_sz, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, n;

	while (*p) {
		char esc[5];
		int raw = !next_piece(p, &n);
		size_t w = raw ? n : 4;

		if (used + w >= dst_sz)
			break;
		if (raw) {
			memcpy(dst + used, p, n);
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			memcpy(dst + used, esc, 4);
		}
		used += w;
		p += n;
	}
	dst[used] = '\0';
}

const char *safe_text__term(const char *s)
{
	static __thread char slots[SAFE_TEXT_TERM_SLOTS][4096];
	static __thread unsigned next;
	char *dst = slots[next++ % SAFE_TEXT_TERM_SLOTS];

	safe_text__copy_term(dst, sizeof(slots[0]), s ? s : "(null)");
	return dst;
}

void safe_text__file_name(char *dst, size_t dst_sz, const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && n + 1 < dst_sz; p++) {
		unsigned char c = *p;
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || (c && strchr("+,-.=@_", c));

		if (n == 0 && (c == '-' || c == '.'))
			keep = false;
		dst[n++] = keep ? (char)c : '_';
	}
	if (!n && dst_sz > 1)
		dst[n++] = '_';
	dst[n] = '\0';
}
