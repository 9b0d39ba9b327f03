/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kaish_parse.c - libFuzzer target for the shell kernel's front end: the lexer
 * (lex_tokenize, lex_match on every bracket) and the parser (parse_program), then the
 * validator on an isolated kernel. Nothing runs. Any crash, sanitizer report, leak or
 * recursion past the documented depth bounds is a bug.
 *
 * Also built without libFuzzer (KAISH_FUZZ_NO_MAIN) into the unit-test replayer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kaish.h"
#include "lex.h"
#include "parse.h"
#include "validate.h"

int kaish_fuzz_parse_one(const uint8_t *data, size_t size);

int kaish_fuzz_parse_one(const uint8_t *data, size_t size)
{
	/* The public API takes a C string: a script ends at its first NUL. */
	char *src = malloc(size + 1); /* not strndup: the input is not NUL-terminated */
	size_t len;
	struct toklist tl = { 0 };
	char *err = NULL;

	if (!src)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';
	len = strlen(src);

	if (lex_tokenize(src, len, 1, &tl, &err) == 0)
		lex_free(&tl); /* on failure lex_tokenize has freed the tokens itself */
	free(err);
	err = NULL;

	/* Balanced-construct matching from every opening bracket. */
	for (size_t i = 0; i < len && i < 512; i++) {
		if (src[i] == '(')
			(void)lex_match(src, len, i, '(', ')');
		else if (src[i] == '{')
			(void)lex_match(src, len, i, '{', '}');
	}

	struct program *p = parse_program(src, &err);
	if (p) {
		kaish_config *cfg = kaish_config_isolated();
		kaish_kernel *k = cfg ? kaish_kernel_new(cfg, NULL) : NULL;
		char *verr = NULL;

		if (k)
			(void)validate_program(k, p, &verr);
		free(verr);
		kaish_kernel_free(k);
		kaish_config_free(cfg);
		program_unref(p);
	}
	free(err);
	free(src);
	return 0;
}

#ifndef KAISH_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kaish_fuzz_parse_one(data, size);
}
#endif
