# Rooms: a folder of src/ built as one static library that sees only itself and
# the rooms it uses, so an include of any other room fails to compile.
#
#   attn_room(<target> <folder> SOURCES <file>... [USES [PUBLIC|PRIVATE] <target>...])
#
# Includes name the room ("model/forward.hpp"), so the include path cannot be the
# folder above the rooms: that would show them all. Each room gets a folder of the
# build tree, rooms/<target>/, holding one symbolic link, <room> -> <folder>, and
# puts it on its own path and its users' (PUBLIC). USES links the rooms this one
# includes: PUBLIC those its headers include (whoever includes its headers needs
# them too), PRIVATE those only its sources include; USES with no keyword is PUBLIC.
# A room thus sees its own folder and those its uses lead to, transitively, and
# nothing else. The targets also carry the link folder as ATTN_ROOM_INCLUDE_DIR.
function(attn_room target folder)
  cmake_parse_arguments(room "" "" "SOURCES;USES" ${ARGN})
  get_filename_component(folder "${folder}" ABSOLUTE)
  get_filename_component(name "${folder}" NAME)
  set(include_dir "${CMAKE_BINARY_DIR}/rooms/${target}")
  file(MAKE_DIRECTORY "${include_dir}")
  file(CREATE_LINK "${folder}" "${include_dir}/${name}" SYMBOLIC)
  add_library(${target} STATIC ${room_SOURCES})
  set_target_properties(${target} PROPERTIES ATTN_ROOM_INCLUDE_DIR "${include_dir}")
  target_include_directories(${target} PUBLIC "${include_dir}")
  target_link_libraries(${target} PRIVATE attn_warnings)
  if(room_USES)
    list(GET room_USES 0 first)
    if(NOT first MATCHES "^(PUBLIC|PRIVATE)$")
      list(PREPEND room_USES PUBLIC)
    endif()
    target_link_libraries(${target} ${room_USES})
  endif()
  list(LENGTH room_SOURCES files)
  if(files GREATER 3)
    attn_pch(${target})
  endif()
endfunction()
