# SPDX-License-Identifier: GPL-3.0-or-later
# Runs paretune-workbench in a real X server (Xvfb) and checks that it rendered a window picture.
# -DSTATE=pareto|timeline|profile|window renders that state (after a quick search) instead.
# -DWHOLE_WINDOW=ON: the picture is the whole window, which must be the screen's size (1280x800:
# the window sizes itself to the screen and its docks' minimum sizes fit in it).
file(REMOVE "${OUTPUT}")
set(state_args)
if(STATE)
  set(state_args --state ${STATE})
endif()
execute_process(
  COMMAND "${XVFB_RUN}" -a -s "-screen 0 1280x800x24" "${WORKBENCH}" --screenshot "${OUTPUT}"
          ${state_args}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  TIMEOUT 90)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "workbench exited with ${result}\n${out}\n${err}")
endif()
if(NOT EXISTS "${OUTPUT}")
  message(FATAL_ERROR "no screenshot written: ${out}\n${err}")
endif()
file(SIZE "${OUTPUT}" size)
if(NOT MIN_BYTES)
  set(MIN_BYTES 20000) # a window with text and widgets; a mostly blank picture is smaller
endif()
if(size LESS MIN_BYTES)
  message(FATAL_ERROR "screenshot is only ${size} bytes: the window did not render")
endif()
file(READ "${OUTPUT}" magic LIMIT 8 HEX)
if(NOT magic STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "screenshot is not a PNG")
endif()
if(WHOLE_WINDOW)
  # The PNG's IHDR: width and height, 4 bytes each, from byte 16.
  file(READ "${OUTPUT}" dimensions OFFSET 16 LIMIT 8 HEX)
  if(NOT dimensions STREQUAL "0000050000000320")
    message(FATAL_ERROR "the window is not 1280x800 on a 1280x800 screen (IHDR ${dimensions})")
  endif()
endif()
message(STATUS "workbench rendered ${size} bytes")
