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
  "app/session|${_widget_headers}|the session layer (the agent) links no widgets"
  "app/session|#include \"(gui|term)/|the session layer includes no front"
  "app/gui|#include \"(remote|term)/|the window reaches the cluster only through the agent (session/)"
  "app/gui|#include \"session/internal/|session/internal/ is the session layer's own"
  "app/term|#include \"(remote|gui)/|the terminal reaches the cluster only through the agent (session/)"
  "app/term|#include \"session/internal/|session/internal/ is the session layer's own"
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
                 torchdeck_core_runs torchdeck_core_agent torchdeck_remote torchdeck_session torchdeck_term)
    get_target_property(links ${target} LINK_LIBRARIES)
    foreach(link IN LISTS links)
      if(link MATCHES "^Qt6::(Widgets|Charts|Gui)$|^torchdeck_gui$")
        string(APPEND breaches "  ${target} links ${link}\n")
      endif()
    endforeach()
  endforeach()
  foreach(target torchdeck_gui torchdeck_term)
    get_target_property(links ${target} LINK_LIBRARIES)
    if("torchdeck_remote" IN_LIST links)
      string(APPEND breaches "  ${target} links torchdeck_remote: a front reaches the cluster through the agent\n")
    endif()
  endforeach()
  if(breaches)
    message(FATAL_ERROR "Links that break the layers (docs/architecture.md):\n${breaches}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  torchdeck_check_layers("${TORCHDECK_SOURCE_DIR}")
  message(STATUS "layers: every include keeps to its layer")
endif()
