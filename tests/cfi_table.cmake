# The CFI table compiler (user/stacks/cfi_*.c): rows against libdw, steps against the libdw
# unwinder, the cache, hostile sections; and its benchmark (not registered).
set(CFIFIX_SRC ${CMAKE_CURRENT_SOURCE_DIR}/data/cfi)
set(CFIFIX_DIR ${CMAKE_CURRENT_BINARY_DIR}/cfifix)

# libcfirules.so: one function per CFI rule, written with .cfi directives.
# The compiler driver assembles .S itself (the preprocessor included): no ASM language for
# the whole project, and none of the tree's C flags, which mean nothing here.
# libcfirules_df.so: the same with its CFI in .debug_frame only.
foreach(variant "libcfirules.so;" "libcfirules_df.so;-DDEBUG_FRAME")
	list(GET variant 0 out)
	list(GET variant 1 def)
	add_custom_command(
		OUTPUT ${CFIFIX_DIR}/${out}
		COMMAND ${CMAKE_COMMAND} -E make_directory ${CFIFIX_DIR}
		COMMAND ${CMAKE_C_COMPILER} -shared -nostdlib -Wl,--build-id ${def}
			-o ${CFIFIX_DIR}/${out} ${CFIFIX_SRC}/rules.S
		DEPENDS ${CFIFIX_SRC}/rules.S
		COMMENT "CFI rules fixture: ${out}"
		VERBATIM)
endforeach()
add_custom_target(cfirules DEPENDS ${CFIFIX_DIR}/libcfirules.so ${CFIFIX_DIR}/libcfirules_df.so)

# ibtplt: a program whose .plt is binutils' IBT one (-z ibtplt), CFI and all.
add_executable(cfi_ibtplt ${CFIFIX_SRC}/ibtplt.c)
target_compile_options(cfi_ibtplt PRIVATE -fcf-protection -fno-sanitize=all)
target_link_options(cfi_ibtplt PRIVATE -Wl,-z,ibtplt -fno-sanitize=all)
set_target_properties(cfi_ibtplt PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CFIFIX_DIR}
	OUTPUT_NAME ibtplt)

add_criterion_test(cfi_table_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cfi_table_unit.c ${CFIFIX_SRC}/capture.c
	LIBS tracer_core
	LABELS unit)
# The captured frames must look like release code: no frame pointers (the tree adds them
# everywhere; these later options win), no sanitizer (ASan would put them back).
set_source_files_properties(${CFIFIX_SRC}/capture.c PROPERTIES COMPILE_OPTIONS
	"-O2;-fomit-frame-pointer;-momit-leaf-frame-pointer;-fno-sanitize=all;-fasynchronous-unwind-tables")
target_include_directories(cfi_table_unit PRIVATE ${CFIFIX_SRC})
target_compile_definitions(cfi_table_unit PRIVATE CFIFIX_DIR="${CFIFIX_DIR}"
	UNWFIX_DIR="${CMAKE_CURRENT_BINARY_DIR}/unwfix")
target_link_libraries(cfi_table_unit PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(cfi_table_unit cfirules cfi_ibtplt unwfix)
tracer_test_timeout(cfi_table_unit 120)

# Build time and size of tables, cold (compiled) and warm (from the cache): see
# docs/BENCHMARKS.md. Not a ctest test.
add_executable(cfi_table_bench ${CMAKE_CURRENT_SOURCE_DIR}/cfi_table_bench.c)
target_compile_options(cfi_table_bench PRIVATE ${TRACER_WARNINGS})
target_include_directories(cfi_table_bench PRIVATE ${PROJECT_SOURCE_DIR}/user/stacks)
target_link_libraries(cfi_table_bench PRIVATE tracer_core)
