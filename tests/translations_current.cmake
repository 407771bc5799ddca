# SPDX-License-Identifier: GPL-3.0-or-later
# The checked-in zh_CN translation is current: lupdate over today's sources (into a copy) finds
# no message without a translation and none that vanished from the code. A tr() string added
# without translating it, or a source file the translation does not scan, fails here.
#   cmake -DLUPDATE=... -DSOURCE_DIR=... -DWORK=... -P translations_current.cmake
file(MAKE_DIRECTORY ${WORK})
configure_file(${SOURCE_DIR}/translations/paretune_zh_CN.ts ${WORK}/paretune_zh_CN.ts COPYONLY)
execute_process(
  COMMAND ${LUPDATE} -silent ${SOURCE_DIR}/widgets ${SOURCE_DIR}/app/workbench/main.cpp
          -ts ${WORK}/paretune_zh_CN.ts
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "lupdate failed (${result}): ${output}")
endif()
file(STRINGS ${WORK}/paretune_zh_CN.ts stale REGEX "type=\"(unfinished|vanished|obsolete)\"")
list(LENGTH stale count)
if(count GREATER 0)
  file(READ ${WORK}/paretune_zh_CN.ts text)
  string(REGEX MATCHALL "<source>[^<]*</source>\n[^\n]*type=\"(unfinished|vanished)\"" found
         "${text}")
  string(REPLACE ";" "\n" found "${found}")
  message(FATAL_ERROR "translations/paretune_zh_CN.ts is not current (${count} entries; run "
                      "cmake --build build/dev --target update_translations and translate):\n"
                      "${found}")
endif()
message(STATUS "zh_CN translation current")
