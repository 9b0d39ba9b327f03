# `tracer diff` as a CI gate (--fail-if, --match, --depth, --format markdown|svg): unit tests
# on the ci_*.json fixtures (tests/data/report/) and Valgrind's ls profile; the
# differential flame graph is rendered in headless Chromium (export_helpers.c).
add_criterion_test(diff_ci_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/diff_ci_unit.c ${CMAKE_CURRENT_SOURCE_DIR}/export_helpers.c
	LIBS tracer_core
	LABELS unit)
tracer_test_timeout(diff_ci_unit 600)

# The same on real traces: diff_prog.c compiled (by the test, with the project's C compiler)
# as is, with its lines moved, and with a planted regression; traced by the tracer and by
# Valgrind. Root + BTF: label bpf.
add_criterion_test(diff_ci_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/diff_ci_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(diff_ci_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	CC_BIN="${CMAKE_C_COMPILER}")
add_dependencies(diff_ci_e2e tracer)
tracer_test_timeout(diff_ci_e2e 900)
