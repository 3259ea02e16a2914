# The layers' include rules (docs/architecture.md), checked on the sources' text: Qt's headers all sit under
# one include directory, so a widget header would compile in a library that does not link Qt6::Widgets.
# Included by the top-level CMakeLists (configuring fails on a breach) and run by the test layers.includes:
#   cmake -DTORCHDECK_SOURCE_DIR=<repo> -P cmake/layers.cmake

# Widget-free layers: the core, the remote library and the session layer (the agent runs without a display).
set(_widget_headers "#include [<\"](QtWidgets|QtCharts|QtGui/|QWidget|QDialog|QMainWindow|QApplication|QMessageBox|QAction|QLabel|QPushButton|QChart|QGuiApplication|QPainter|QPixmap|QIcon)")
set(_torchdeck_layer_rules
  # folder      forbidden include (regex)                                           why
  "app/core|${_widget_headers}|the core links no widgets"
  "app/core|#include \"(remote|session|gui|term)/|the core includes no layer above it"
  "remote|${_widget_headers}|the remote library links no widgets"
  "remote|#include \"(session|gui|term)/|the remote library includes no layer above it"
  "app/session|${_widget_headers}|the agent (session/) links no widgets"
  "app/session|#include \"(gui|term)/|the agent includes no front"
  "app/client|${_widget_headers}|the agent's client links no widgets"
  "app/client|#include \"(session|remote|gui|term)/|the agent's client includes nothing of the agent (session/): one direction"
  "app/gui|#include \"(remote|term|session)/|the window reaches the cluster only through the agent's client (client/)"
  "app/term|#include \"(remote|gui|session)/|the terminal reaches the cluster only through the agent's client (client/)"
  "app/term|${_widget_headers}|the terminal front links no widgets"
)

function(torchdeck_check_layers source_dir)
  set(breaches "")
  foreach(rule IN LISTS _torchdeck_layer_rules)
    string(REPLACE "|" ";" parts "${rule}")
    list(GET parts 0 folder)
    list(GET parts -1 why)
    list(REMOVE_AT parts 0 -1)
    string(JOIN "|" pattern ${parts})
    file(GLOB_RECURSE files "${source_dir}/${folder}/*.h" "${source_dir}/${folder}/*.cpp")
    foreach(file IN LISTS files)
      file(STRINGS "${file}" lines REGEX "${pattern}")
      foreach(line IN LISTS lines)
        file(RELATIVE_PATH relative "${source_dir}" "${file}")
        string(APPEND breaches "  ${relative}: ${line}  (${why})\n")
      endforeach()
    endforeach()
  endforeach()
  if(breaches)
    message(FATAL_ERROR "Includes that break the layers (docs/architecture.md):\n${breaches}")
  endif()
endfunction()

# The same rules on the targets: what each layer's library links, directly.
function(torchdeck_check_layer_links)
  set(breaches "")
  foreach(target torchdeck_core_base torchdeck_core_jobs torchdeck_core_metrics torchdeck_core_store
                 torchdeck_core_runs torchdeck_core_agent torchdeck_remote torchdeck_client torchdeck_agent
                 torchdeck_term)
    get_target_property(links ${target} LINK_LIBRARIES)
    foreach(link IN LISTS links)
      if(link MATCHES "^Qt6::(Widgets|Charts|Gui)$|^torchdeck_gui$")
        string(APPEND breaches "  ${target} links ${link}\n")
      endif()
    endforeach()
  endforeach()
  foreach(target torchdeck_gui torchdeck_term torchdeck_client)
    get_target_property(links ${target} LINK_LIBRARIES)
    foreach(forbidden torchdeck_remote torchdeck_agent)
      if(forbidden IN_LIST links)
        string(APPEND breaches "  ${target} links ${forbidden}: a front reaches the cluster through the agent's client\n")
      endif()
    endforeach()
  endforeach()
  if(breaches)
    message(FATAL_ERROR "Links that break the layers (docs/architecture.md):\n${breaches}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  torchdeck_check_layers("${TORCHDECK_SOURCE_DIR}")
  message(STATUS "layers: every include keeps to its layer")
endif()
