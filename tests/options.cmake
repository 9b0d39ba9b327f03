# The option tables (options.c, opt_table.c, the cli_*.c tables): --help, the man page and
# the completion cover every option; argv vectors parse into the expected struct tracer_opts.
add_criterion_test(options_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/options_unit.c
	LIBS tracer_core
	LABELS unit)
