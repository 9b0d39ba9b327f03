# Feedback while tracing and trace-time --skip, end to end (root + BTF: label bpf): the
# --pid attach line, the progress line on a terminal only (a pty), and --skip recorded in
# the profile for `tracer report`.
add_executable(feedback_wrapped ${CMAKE_CURRENT_SOURCE_DIR}/data/feedback/wrapped.c)
target_compile_options(feedback_wrapped PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(feedback_wrapped PRIVATE -fno-sanitize=all)

add_criterion_test(feedback_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/feedback_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core util
	LABELS bpf)
target_compile_definitions(feedback_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	SPIN_BIN="$<TARGET_FILE:fault_alloc_spin>"
	WRAPPED_BIN="$<TARGET_FILE:feedback_wrapped>")
add_dependencies(feedback_e2e tracer fault_alloc_spin feedback_wrapped)
tracer_test_timeout(feedback_e2e 600)
