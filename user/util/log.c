// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "log.h"

int tracer_verbosity;
