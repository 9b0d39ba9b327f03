/* SPDX-License-Identifier: MIT */
/* validate.h - static checks on a parsed program, before anything runs. */
#ifndef KAISH_VALIDATE_H
#define KAISH_VALIDATE_H

#include "kaish.h"

struct program;

/* Returns 0, or -1 with *err set (malloc'd). */
int validate_program(kaish_kernel *k, struct program *p, char **err);

#endif /* KAISH_VALIDATE_H */
