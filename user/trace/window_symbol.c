// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "window_symbol.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "elf_file.h"

void window_symbol__split(const char *spec, const char *executable, char *path, size_t path_sz,
			  const char **name)
{
	const char *sep = NULL;

	for (const char *c = spec + 1; *c; c++)
		if (*c == ':' && c[-1] != ':' && c[1] != ':')
			sep = c;
	if (sep) {
		snprintf(path, path_sz, "%.*s", (int)(sep - spec), spec);
		*name = sep + 1;
	} else {
		snprintf(path, path_sz, "%s", executable);
		*name = spec;
	}
}

/* Whether the demangled name d is name, or name followed by a parameter list "(...)", maybe
 * after an ABI tag ("make_string[abi:cxx11]()"). */
static bool demangled_match(const char *d, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(d, name, n) && (d[n] == '\0' || d[n] == '(' || !strncmp(d + n, "[abi:", 5));
}

/* How good a match symbol s is: 2 its own name, 1 its demangled name, 0 none. */
static int match(const char *s, const char *name)
{
	char *d;
	int m;

	if (!strcmp(s, name))
		return 2;
	/* only mangled names demangle: skip the cheap misses */
	if (strncmp(s, "_Z", 2) && strncmp(s, "_R", 2) && strncmp(s, "__Z", 3))
		return 0;
	d = demangle__name(s);
	/* GCC's partial clones ("f(int) [clone .cold]") are not the function's entry */
	m = d && demangled_match(d, name) && !strstr(d, " [clone ");
	free(d);
	return m;
}

int window_symbol__resolve(const char *path, const char *name, char *sym, size_t sym_sz,
			   int *ambiguous)
{
	GElf_Addr found_at = 0;
	Elf_Scn *scn = NULL;
	int err = -ENOENT, best = 0;
	struct elf_file f;
	Elf *elf;

	*ambiguous = 0;
	/* a file the target or the command line names, opened as root: the safe way */
	if ((err = elf_file__open(path, &f)))
		return err;
	elf = f.elf;
	err = -ENOENT;
	while ((scn = elf_nextscn(elf, scn)) && best < 2) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize && best < 2; i++) {
			const char *s;
			GElf_Sym es;
			int m;

			if (!gelf_getsym(data, (int)i, &es) || es.st_shndx == SHN_UNDEF ||
			    !es.st_value || GELF_ST_TYPE(es.st_info) != STT_FUNC)
				continue;
			s = elf_strptr(elf, sh.sh_link, es.st_name);
			m = s ? match(s, name) : 0;
			if (!m || m < best)
				continue;
			if (m == best) {
				/* the same function in .symtab and .dynsym is no ambiguity */
				*ambiguous |= es.st_value != found_at;
				continue;
			}
			best = m;
			found_at = es.st_value;
			*ambiguous = 0;
			if (strlen(s) >= sym_sz) {
				err = -ENAMETOOLONG;
				goto cleanup;
			}
			strcpy(sym, s);
			err = 0;
		}
	}
cleanup:
	elf_file__close(&f);
	return err;
}
