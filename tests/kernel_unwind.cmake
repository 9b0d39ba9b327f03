# kernel_unwind_e2e: --unwind kernel where its tables come late or are shared (root + BTF:
# label bpf), each against --unwind dwarf on the same work:
#  - two processes at once on one CPU whose code lies at the same addresses with other rows
#    (exec_chain --together, tests/unwind_modes.cmake's two builds without PIE);
#  - --pid on a running process (late, below);
#  - frames of a library dlopen'd after the exec (late with late_lib.so);
#  - threads allocating while another maps and unmaps (mapper).
set(KERNEL_UNWIND_SRC ${CMAKE_CURRENT_SOURCE_DIR}/data/kernel_unwind)
add_executable(kernel_unwind_late ${KERNEL_UNWIND_SRC}/late.c)
target_compile_options(kernel_unwind_late PRIVATE -g -O2 -fomit-frame-pointer
	-momit-leaf-frame-pointer -fno-sanitize=all -Wall -Wextra -Werror)
target_link_options(kernel_unwind_late PRIVATE -fno-sanitize=all)
target_link_libraries(kernel_unwind_late PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(kernel_unwind_late PROPERTIES OUTPUT_NAME late
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e-kernel-unwind)

add_library(kernel_unwind_late_lib MODULE ${KERNEL_UNWIND_SRC}/late_lib.c)
target_compile_options(kernel_unwind_late_lib PRIVATE -g -O2 -fomit-frame-pointer
	-momit-leaf-frame-pointer -fno-sanitize=all -Wall -Wextra -Werror)
target_link_options(kernel_unwind_late_lib PRIVATE -fno-sanitize=all)
set_target_properties(kernel_unwind_late_lib PROPERTIES OUTPUT_NAME late_lib PREFIX ""
	LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e-kernel-unwind)

add_executable(kernel_unwind_mapper ${KERNEL_UNWIND_SRC}/mapper.c)
target_compile_options(kernel_unwind_mapper PRIVATE -g -O2 -fomit-frame-pointer
	-momit-leaf-frame-pointer -fno-sanitize=all -Wall -Wextra -Werror)
target_link_options(kernel_unwind_mapper PRIVATE -fno-sanitize=all)
target_link_libraries(kernel_unwind_mapper PRIVATE Threads::Threads)
set_target_properties(kernel_unwind_mapper PROPERTIES OUTPUT_NAME mapper
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e-kernel-unwind)

add_criterion_test(kernel_unwind_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernel_unwind_e2e.c
		${CMAKE_CURRENT_SOURCE_DIR}/unwind_compare.c
		${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(kernel_unwind_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	EXEC_CHAIN_A="$<TARGET_FILE:exec_chain_256>"
	EXEC_CHAIN_B="$<TARGET_FILE:exec_chain_4096>"
	LATE_BIN="$<TARGET_FILE:kernel_unwind_late>"
	LATE_LIB="$<TARGET_FILE:kernel_unwind_late_lib>"
	MAPPER_BIN="$<TARGET_FILE:kernel_unwind_mapper>")
add_dependencies(kernel_unwind_e2e tracer exec_chain_256 exec_chain_4096 kernel_unwind_late
	kernel_unwind_late_lib kernel_unwind_mapper)
tracer_test_timeout(kernel_unwind_e2e 300)
