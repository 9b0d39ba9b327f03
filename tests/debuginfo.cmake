# Debug info found the way gdb and perf find it, end to end (root + BTF: label bpf): a
# stripped program whose only names are in a separate debug file, found through --debug-dir
# (flat and .build-id tree) and through a real debuginfod server on 127.0.0.1.
# -fno-sanitize=all: the program is traced, not tested; frame pointers for --unwind fp.
add_executable(debuginfo_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/debuginfo/debuginfo_prog.c)
target_compile_options(debuginfo_prog PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(debuginfo_prog PRIVATE -fno-sanitize=all -Wl,--build-id)
# The split, as distributions make it: srv/ holds the debug file alone (what debuginfod
# serves, a flat --debug-dir), bin/ the stripped program, whose debuglink names a file that
# is not beside it. The build-id note stays in both.
set(debuginfo_dir ${CMAKE_CURRENT_BINARY_DIR}/debuginfo)
add_custom_command(OUTPUT ${debuginfo_dir}/bin/debuginfo_prog ${debuginfo_dir}/srv/debuginfo_prog.debug
	COMMAND ${CMAKE_COMMAND} -E make_directory ${debuginfo_dir}/bin ${debuginfo_dir}/srv
	COMMAND objcopy --only-keep-debug $<TARGET_FILE:debuginfo_prog>
		${debuginfo_dir}/srv/debuginfo_prog.debug
	COMMAND objcopy --strip-all
		--add-gnu-debuglink=${debuginfo_dir}/srv/debuginfo_prog.debug
		$<TARGET_FILE:debuginfo_prog> ${debuginfo_dir}/bin/debuginfo_prog
	DEPENDS debuginfo_prog
	COMMENT "debuginfo_prog: stripped binary + separate debug file")
add_custom_target(debuginfo_split ALL DEPENDS ${debuginfo_dir}/bin/debuginfo_prog)

add_criterion_test(debuginfo_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/debuginfo_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(debuginfo_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	STRIPPED_BIN="${debuginfo_dir}/bin/debuginfo_prog"
	DEBUG_FILE="${debuginfo_dir}/srv/debuginfo_prog.debug"
	DEBUG_SRV_DIR="${debuginfo_dir}/srv")
add_dependencies(debuginfo_e2e tracer debuginfo_split)
tracer_test_timeout(debuginfo_e2e 600)

# One profile for the program named (issue #35 item 4): -o FILE is the final image of the
# command, the others go to FILE.d/, the small ones only with --all-images. debuginfo_prog
# (unstripped) is the final program.
add_criterion_test(images_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/images_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(images_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	PROG_BIN="$<TARGET_FILE:debuginfo_prog>")
add_dependencies(images_e2e tracer debuginfo_prog)
tracer_test_timeout(images_e2e 600)

# The closing hint's parts, anywhere (no root): tests/debug_hint_unit.c.
add_criterion_test(debug_hint_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/debug_hint_unit.c
	LIBS tracer_symbolize
	LABELS unit)
