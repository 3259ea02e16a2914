# unit.layers_breach: the layer check (cmake/layers.cmake) fails, naming the file, when a front includes the agent
# (app/session) or remote/, or the agent's client includes the agent. A tree of such files is written and checked.
#   cmake -DTORCHDECK_SOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P tests/unit/layers_breach.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(breaches
    "app/gui/breach.cpp|#include \"session/agent.h\""
    "app/term/breach.cpp|#include \"session/clustersession.h\""
    "app/term/remote_breach.cpp|#include \"remote/connection.h\""
    "app/client/breach.cpp|#include \"session/agentrequests.h\"")
foreach(breach IN LISTS breaches)
  string(REPLACE "|" ";" parts "${breach}")
  list(GET parts 0 path)
  list(GET parts 1 line)
  file(REMOVE_RECURSE "${WORK_DIR}/tree")
  file(WRITE "${WORK_DIR}/tree/${path}" "${line}\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DTORCHDECK_SOURCE_DIR=${WORK_DIR}/tree
                          -P ${TORCHDECK_SOURCE_DIR}/cmake/layers.cmake
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(result EQUAL 0)
    message(FATAL_ERROR "the layer check let ${path} (${line}) pass")
  endif()
  string(FIND "${err}" "${path}" named)
  if(named EQUAL -1)
    message(FATAL_ERROR "the layer check failed without naming ${path}: ${err}")
  endif()
endforeach()
# A front including the agent's client is what it should do.
file(REMOVE_RECURSE "${WORK_DIR}/tree")
file(WRITE "${WORK_DIR}/tree/app/gui/fine.cpp" "#include \"client/agentclient.h\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DTORCHDECK_SOURCE_DIR=${WORK_DIR}/tree
                        -P ${TORCHDECK_SOURCE_DIR}/cmake/layers.cmake RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the layer check refused a front including client/agentclient.h")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "layers_breach: every breach refused by name")
