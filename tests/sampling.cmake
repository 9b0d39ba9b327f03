# --sample-bytes: the probability arithmetic shared with BPF (bpf/sampling.h), the weights,
# the collector's weighting, and BPF's sampled-block map lifecycle (bpf/sampling.bpf.h
# compiled on the host against a stub map). No root.
add_criterion_test(sampling_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/sampling_unit.c
	LIBS tracer_core m
	LABELS unit)
