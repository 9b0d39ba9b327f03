# Python frames without a target (issue #32): py_stacks_unit checks the splice of Python
# frames at the evaluation loop (user/stacks/py_stacks.c), report/export --python-only's
# fold (user/analyze/python_only.c) and the allocator domains' requests (bpf/alloc_request.h).
add_criterion_test(py_stacks_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/py_stacks_unit.c
	LIBS tracer_core
	LABELS unit)
target_include_directories(py_stacks_unit PRIVATE ${PROJECT_SOURCE_DIR}/bpf)
