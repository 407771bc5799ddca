# SPDX-License-Identifier: GPL-3.0-or-later
# The programs export no symbol of Qt, ONNX or Paretune (issue 22). Were they to, the Qt 5 that
# Debian's LibTorch loads through OpenCV would bind its calls of Qt's inline functions to the
# programs' Qt 6 copies. Only libstdc++'s templates (namespace std keeps default visibility)
# may be left in the dynamic symbol table.
#   cmake -DNM=nm -DPROGRAMS="a;b" -P exported_symbols.cmake
foreach(program ${PROGRAMS})
  execute_process(COMMAND "${NM}" -D --defined-only -C "${program}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${program}: ${err}")
  endif()
  # "ADDRESS TYPE NAME": a name in a Qt (Q…), ONNX or Paretune scope, with or without a
  # template function's return type before it; std:: names whose arguments mention them pass.
  string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] ([a-z]+ )?(Q[A-Za-z]*(::|<)|onnx::|paretune::)[^\n]*"
         exported "${symbols}")
  list(LENGTH exported count)
  if(count GREATER 0)
    list(SUBLIST exported 0 5 first)
    string(REPLACE ";" "\n" first "${first}")
    message(FATAL_ERROR "${program} exports ${count} symbols of Qt, ONNX or Paretune, such as:\n"
                        "${first}\n(build it with -fvisibility=hidden -fvisibility-inlines-hidden)")
  endif()
endforeach()
message(STATUS "no Qt, ONNX or Paretune symbol exported by: ${PROGRAMS}")
