// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* placeholder: replaced by the allocation probes */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
char LICENSE[] SEC("license") = "Dual BSD/GPL";
