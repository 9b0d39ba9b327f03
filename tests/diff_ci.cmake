# `tracer diff` as a CI gate (--fail-if, --match, --depth, --format markdown|svg): unit tests
# on the ci_*.json fixtures (tests/data/report/) and Valgrind's ls profile; the
# differential flame graph is rendered in headless Chromium (export_helpers.c).
add_criterion_test(diff_ci_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/diff_ci_test.c ${CMAKE_CURRENT_SOURCE_DIR}/export_helpers.c
	LIBS tracer_core
	LABELS unit)
tracer_test_timeout(diff_ci_unit 600)
