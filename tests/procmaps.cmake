# procmaps: /proc/PID/{stat,maps,map_files,root,mem} helpers shared by symbolizer and unwinder.
add_criterion_test(procmaps_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/procmaps_unit.c LIBS tracer_core LABELS unit)
