# The tracer's own output never mixes with the traced command's (-- CMD, -q, --summary), and
# what a profile lost is counted honestly and recorded in the file: stripped programs,
# "cut short" stacks, the "lost" object in dh_view and `tracer report`. Root + BTF: label bpf.
# -fno-sanitize=all: the programs are traced, not tested; frame pointers for --unwind fp.
add_executable(honest_entry_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/honest/entry_prog.c)
target_compile_options(honest_entry_prog PRIVATE -O0 -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(honest_entry_prog PRIVATE -fno-sanitize=all)
add_custom_command(TARGET honest_entry_prog POST_BUILD
	COMMAND strip $<TARGET_FILE:honest_entry_prog>
	COMMENT "Stripping honest_entry_prog (no symbol of it may be named)")

add_executable(honest_lost_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/honest/lost_prog.c)
target_compile_options(honest_lost_prog PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(honest_lost_prog PRIVATE -fno-sanitize=all)

add_criterion_test(honest_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/honest_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(honest_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	ENTRY_PROG_BIN="$<TARGET_FILE:honest_entry_prog>"
	LOST_PROG_BIN="$<TARGET_FILE:honest_lost_prog>"
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
add_dependencies(honest_e2e tracer honest_entry_prog honest_lost_prog)
tracer_test_timeout(honest_e2e 900)
